/// The body of an error answer of the mobile-services API (the `Error` schema), written
/// by the server and read by clients. The code is kept as sent, so a client reads the
/// message of a code it does not know; ``errorCode`` is `nil` then.
public struct ErrorDocument: Codable, Sendable, Hashable {
    /// The code, as sent.
    public var code: String
    /// A sentence for people; never holds a secret.
    public var message: String
    /// The request's ID, as in the server's log.
    public var requestID: String?
    /// Seconds to wait before trying again (429, 503).
    public var retryAfterSeconds: Int?

    public init(code: ErrorCode, message: String, requestID: String? = nil, retryAfterSeconds: Int? = nil) {
        self.code = code.rawValue
        self.message = message
        self.requestID = requestID
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// The code, when it is one of the contract's.
    public var errorCode: ErrorCode? { ErrorCode(rawValue: code) }
}

/// The body of an OAuth 2.0 error answer (the `OAuthError` schema).
public struct OAuthErrorDocument: Codable, Sendable, Hashable {
    /// The error, as sent.
    public var error: String
    /// A sentence for people; never holds a code or token.
    public var errorDescription: String?

    enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
    }

    public init(error: OAuthErrorCode, description: String?) {
        self.error = error.rawValue
        self.errorDescription = description.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The error, when it is one of the contract's.
    public var errorCode: OAuthErrorCode? { OAuthErrorCode(rawValue: error) }
}
