import Foundation

/// A request to one of the app's destinations: its company backend, reached through the
/// server as the signed-in person.
public struct DestinationRequest: Sendable, Hashable {
    public var method: String
    /// The destination's name, as the admin set it.
    public var destination: String
    /// The path under the destination's URL: empty, or starting with `/`.
    public var path: String
    /// The query, without `?`, percent-encoded as it should reach the backend.
    public var query: String?
    /// Headers for the backend. `Authorization` and `Cookie` are the server's to set: the
    /// backend gets the signed-in person instead.
    public var headers: [String: String]
    public var body: Data?

    public init(
        _ method: String = "GET",
        destination: String,
        path: String = "",
        query: String? = nil,
        headers: [String: String] = [:],
        body: Data? = nil
    ) {
        self.method = method
        self.destination = destination
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }
}

/// What a destination's backend answered, whatever its status: the server's own refusals
/// (the session ended, the registration locked, no such destination, the backend out of
/// reach) are thrown as ``ServiceError`` instead.
public struct DestinationResponse: Sendable, Hashable {
    public var status: Int
    /// The backend's headers, by lowercased name.
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// How far a large body of a destination request has travelled.
public struct TransferProgress: Sendable, Hashable {
    public enum Direction: Sendable, Hashable {
        case upload
        case download
    }

    public var direction: Direction
    /// The bytes sent or received so far.
    public var bytes: Int
    /// The body's whole size, when known (a download without `Content-Length` has none).
    public var total: Int?

    public init(_ direction: Direction, bytes: Int, total: Int?) {
        self.direction = direction
        self.bytes = bytes
        self.total = total
    }
}

/// Who hears of a transfer's progress, and from what size on.
public struct TransferObserver: Sendable {
    /// The smallest body reported: a smaller one travels without a word.
    public var threshold: Int
    public var report: @Sendable (TransferProgress) -> Void

    public init(threshold: Int, report: @escaping @Sendable (TransferProgress) -> Void) {
        self.threshold = max(0, threshold)
        self.report = report
    }
}
