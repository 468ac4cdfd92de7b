import Foundation
import HTTPTypes

/// A server's answer to a ``RunningTestServer`` request: status, headers and body.
public struct ServerReply: Sendable {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// The response headers.
    public var headers: HTTPFields
    /// The body as sent.
    public var body: Data

    /// A reply with the given parts.
    public init(status: HTTPResponse.Status, headers: HTTPFields = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body as a JSON object.
    public var json: [String: any Sendable] {
        get throws {
            guard let object = try JSONSerialization.jsonObject(with: body) as? [String: any Sendable] else {
                throw TestServerError("the body is not a JSON object: \(text)")
            }
            return object
        }
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The stable code of an error reply.
    public var code: String? { (try? json)?["code"] as? String }

    /// The body decoded from JSON, dates in ISO 8601.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(T.self, from: body)
    }

    /// Throws unless the status is `status`.
    public func expect(_ status: HTTPResponse.Status) throws {
        guard self.status == status else {
            throw TestServerError("expected \(status.code), got \(self.status.code): \(text)")
        }
    }
}
