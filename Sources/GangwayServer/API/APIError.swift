import Foundation
import GangwayProtocol
import GangwayServerStorage
import HTTPTypes
import OpenAPIRuntime

/// An error the API answers with: an HTTP status, a stable code and a message for people.
///
/// Messages never contain a password, token or secret. The codes are the contract's
/// (``GangwayProtocol/ErrorCode``); clients treat one they do not know by its status.
public struct APIError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: HTTPResponse.Status
    public var code: ErrorCode
    public var message: String
    /// Seconds to wait before trying again (429, 503), sent as `Retry-After`.
    public var retryAfterSeconds: Int?
    /// The reference system's `x-message-code` header (lock and wipe).
    public var messageCode: ErrorCode?

    public init(
        _ status: HTTPResponse.Status,
        _ code: ErrorCode,
        _ message: String,
        retryAfterSeconds: Int? = nil,
        messageCode: ErrorCode? = nil
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
        self.messageCode = messageCode
    }

    public var description: String { "\(status.code) \(code.rawValue): \(message)" }

    static func badRequest(_ message: String, code: ErrorCode = .badRequest) -> APIError {
        APIError(.badRequest, code, message)
    }

    /// A body's key the document does not name at its place (`path`, dotted, already
    /// made safe to show), at the top or deeper.
    static func unknownField(at path: String) -> APIError {
        .badRequest("The request does not match the API document (at \(path): it takes no such field).")
    }

    static func notFound(_ code: ErrorCode, _ message: String) -> APIError {
        APIError(.notFound, code, message)
    }

    static let appNotFound = APIError(.notFound, .appNotFound, "There is no app with this ID.")
    static let unauthorized = APIError(.unauthorized, .unauthorized, "A valid bearer token is required.")
    static let tokenExpired = APIError(.unauthorized, .tokenExpired, "The session has expired; sign in again.")
    static let adminRequired = APIError(.unauthorized, .adminTokenRequired, "A valid admin token is required.")
    static let signInFailed = APIError(.unauthorized, .authFailed, "Wrong user name or password.")
    static let passwordSignInOff = APIError(
        .forbidden,
        .oauth2Required,
        "This app signs people in with OAuth 2.0, not with a password here."
    )
    static let registrationLocked = APIError(
        .forbidden,
        .registrationLocked,
        "An administrator locked this device; it is served again once an administrator unlocks it.",
        messageCode: .registrationLocked
    )
    static let registrationWiped = APIError(
        .forbidden,
        .registrationWiped,
        "An administrator wiped this device; its data for this user must be erased.",
        messageCode: .registrationWiped
    )
    static let deviceNotRegistered = APIError(
        .forbidden,
        .deviceNotRegistered,
        "Register this device (PUT /apps/{appID}/devices/{deviceID}) before reading the app's data or uploading logs."
    )
    static func throttled(retryAfter seconds: Int) -> APIError {
        APIError(
            .tooManyRequests,
            .authThrottled,
            "Too many failed sign-ins; try again in \(seconds) seconds.",
            retryAfterSeconds: seconds
        )
    }
    static func recoveryThrottled(retryAfter seconds: Int) -> APIError {
        APIError(
            .tooManyRequests,
            .recoveryThrottled,
            "This device's recovery secret was given out too often; try again in \(seconds) seconds.",
            retryAfterSeconds: seconds
        )
    }
    static func logUploadThrottled(retryAfter seconds: Int) -> APIError {
        APIError(
            .tooManyRequests,
            .logUploadThrottled,
            "This device uploaded logs too often; try again in \(seconds) seconds.",
            retryAfterSeconds: seconds
        )
    }
    /// Too many password checks run and wait: refused before queueing, so a flood
    /// cannot hold everyone's sign-in behind it.
    static let busy = APIError(
        .serviceUnavailable,
        .serverBusy,
        "The server is checking too many sign-ins; try again in a second.",
        retryAfterSeconds: 1
    )
    static func storage(_ error: StorageError) -> APIError {
        switch error.code {
        case .duplicate: APIError(.conflict, .conflict, "It exists already.")
        case .invalidText: APIError(.badRequest, .invalidText, "A text holds a character the server cannot store.")
        case .limitReached: APIError(.conflict, .limitReached, "The server's limit for this kind of data is reached.")
        case .notValid: APIError(.badRequest, .invalidField, error.message)
        case .conflict: APIError(.conflict, .conflict, "It changed meanwhile; read it again and retry.")
        case .unavailable, .corrupt:
            APIError(.serviceUnavailable, .storageUnavailable, "The server's database is not available; try again.")
        }
    }
}
