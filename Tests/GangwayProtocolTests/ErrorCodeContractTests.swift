import Foundation
import GangwayProtocol
import Testing

@Suite("Error codes: one list, held to the API document")
struct ErrorCodeContractTests {
    static func schema(_ name: String) throws -> [String: Any] {
        let document = try #require(try JSONSerialization.jsonObject(with: APIDocument.json()) as? [String: Any])
        let components = try #require(document["components"] as? [String: Any])
        let schemas = try #require(components["schemas"] as? [String: Any])
        return try #require(schemas[name] as? [String: Any])
    }

    static func enumeration(_ schema: String, property: String) throws -> [String] {
        let properties = try #require(try Self.schema(schema)["properties"] as? [String: Any])
        let field = try #require(properties[property] as? [String: Any])
        return try #require(field["enum"] as? [String], "\(schema).\(property) lists its values")
    }

    @Test("the Error schema's codes are ErrorCode's, in its order, each once")
    func apiCodesMatchTheDocument() throws {
        let listed = try Self.enumeration("Error", property: "code")
        #expect(listed == ErrorCode.allCases.map(\.rawValue))
        #expect(Set(listed).count == listed.count)
    }

    @Test("the OAuthError schema's errors are OAuthErrorCode's")
    func oauthCodesMatchTheDocument() throws {
        #expect(try Self.enumeration("OAuthError", property: "error") == OAuthErrorCode.allCases.map(\.rawValue))
    }

    @Test("a code is SCREAMING_SNAKE_CASE and an OAuth error snake_case, as their RFCs and the reference write them")
    func codesKeepTheirShape() {
        for code in ErrorCode.allCases {
            #expect(code.rawValue.allSatisfy { $0.isUppercase || $0.isNumber || $0 == "_" }, "\(code.rawValue)")
        }
        for code in OAuthErrorCode.allCases {
            #expect(code.rawValue.allSatisfy { $0.isLowercase || $0 == "_" }, "\(code.rawValue)")
        }
    }

    @Test("an error document keeps a code it does not know, and names the ones it does")
    func documentsReadUnknownCodes() throws {
        let known = try JSONDecoder().decode(
            ErrorDocument.self,
            from: Data(#"{"code":"AUTH_FAILED","message":"Wrong user name or password."}"#.utf8)
        )
        #expect(known.errorCode == .authFailed)
        let newer = try JSONDecoder().decode(
            ErrorDocument.self,
            from: Data(#"{"code":"SOMETHING_NEW","message":"A newer server.","retryAfterSeconds":3}"#.utf8)
        )
        #expect(newer.errorCode == nil && newer.code == "SOMETHING_NEW" && newer.retryAfterSeconds == 3)
        let oauth = try JSONDecoder().decode(
            OAuthErrorDocument.self,
            from: Data(#"{"error":"slow_down","error_description":"Poll less often."}"#.utf8)
        )
        #expect(oauth.errorCode == .slowDown && oauth.errorDescription == "Poll less often.")
        let encoded = try JSONEncoder().encode(OAuthErrorDocument(error: .invalidGrant, description: ""))
        #expect(String(decoding: encoded, as: UTF8.self) == #"{"error":"invalid_grant"}"#, "no empty description")
    }
}
