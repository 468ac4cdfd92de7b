import Crypto
import Foundation
import GangwayServices
import HTTPTypes
import OpenAPIRuntime
import Testing

/// A success status the API document does not list for the call (no Gangway server sends
/// one; a proxy or a newer server could) is an invalid response that names the status,
/// through the same `default:` every call of both clients ends its switch with.
@Suite("A status the document does not list is an invalid response with that status")
struct UnexpectedAnswerTests {
    static let pem = P256.Signing.PrivateKey().publicKey.pemRepresentation

    func activationKey(status: Int, pem: String = Self.pem) async throws(ServiceError) -> String {
        let body = try! JSONSerialization.data(withJSONObject: ["algorithm": "ES256", "publicKeyPEM": pem])
        let client = MobileServicesClient(
            serverURL: URL(string: "http://127.0.0.1:9")!,
            transport: CannedTransport(status: status, body: String(decoding: body, as: UTF8.self))
        )
        return try await client.activationKeyPEM()
    }

    @Test func theDocumentedStatusIsTaken() async throws {
        #expect(try await activationKey(status: 200) == Self.pem)
    }

    @Test func aKeyThatIsNotAP256KeyIsAnInvalidResponse() async {
        await #expect(throws: ServiceError.invalidResponse) { try await activationKey(status: 200, pem: "PEM") }
    }

    @Test(arguments: [201, 202, 204, 299, 304, 399])
    func anotherSuccessOrRedirectNamesItsStatus(status: Int) async {
        let error = await #expect(throws: ServiceError.self) { try await activationKey(status: status) }
        #expect(error == .invalidResponse(status: status))
        #expect(error?.status == status)
    }
}
