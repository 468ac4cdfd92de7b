package import Foundation
internal import GangwayProtocol
import HTTPTypes
package import OpenAPIRuntime

/// The sync call (`syncAppData`), sent without the generated client, whose body reading
/// goes through `JSONDecoder`: a first sync reads a hundred thousand entities, and that
/// decoding was a third of what it cost. The request is the one the generated client
/// sends (the same path, query and `Accept`), through the same transport and
/// ``ServiceCallMiddleware`` (the bearer token, error answers as ``ServiceError``), and
/// the body is read by ``AppDataChanges/scanned(_:)``, or by `JSONDecoder` when the
/// scanner leaves it (so every answer reads as it did).
package enum SyncPageCall {
    package static let operationID = "syncAppData"

    package static func run(
        serverURL: URL,
        transport: any ClientTransport,
        token: String?,
        appID: String,
        entitySet: String,
        cursor: String?,
        limit: Int?,
        wait: Int?
    ) async throws(ServiceError) -> AppDataChanges {
        var query: [String] = []
        if let cursor { query.append("cursor=" + PercentEncoding.encoded(cursor)) }
        if let limit { query.append("limit=\(limit)") }
        if let wait { query.append("wait=\(wait)") }
        let path =
            "/apps/\(PercentEncoding.encoded(appID))/data/\(PercentEncoding.encoded(entitySet))/changes"
            + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        let request = HTTPRequest(
            method: .get,
            scheme: nil,
            authority: nil,
            path: path,
            headerFields: [.accept: "application/json"]
        )
        let body: Data
        do {
            let (response, responseBody) = try await ServiceCallMiddleware(token: token).intercept(
                request,
                body: nil,
                baseURL: serverURL,
                operationID: operationID
            ) { request, body, baseURL in
                try await transport.send(request, body: body, baseURL: baseURL, operationID: operationID)
            }
            let status = response.status.code
            guard status == 200, let responseBody,
                response.headerFields[.contentType].map(isJSON) ?? false
            else { throw ServiceError.invalidResponse(status: status) }
            do {
                body = try await Data(collecting: responseBody, upTo: .max)
            } catch {
                throw ServiceError.invalidResponse(status: status)
            }
        } catch let error as ServiceError {
            throw error
        } catch {
            throw .unreachable(serverURL)
        }
        let scanned = body.withUnsafeBytes { AppDataChanges.scanned($0) }
        if let scanned { return scanned }
        return try ServiceCall.decode {
            AppDataChanges(try JSONDecoder.gangway.decode(Components.Schemas.EntityChanges.self, from: body))
        }
    }

    /// Whether a `Content-Type` is JSON (`application/json`, with parameters or none).
    private static func isJSON(_ contentType: String) -> Bool {
        contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
    }
}
