import Foundation
import HTTPTypes
import OpenAPIRuntime

/// An error the API answers with: an HTTP status, a stable code and a message for people.
///
/// Messages never contain a password, token or secret. New codes may be added; clients
/// should treat an unknown code by its status.
public struct APIError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String
    /// Seconds to wait before trying again (429, 503), sent as `Retry-After`.
    public var retryAfterSeconds: Int?
    /// The reference system's `x-message-code` header (lock and wipe).
    public var messageCode: String?

    public init(
        _ status: HTTPResponse.Status,
        _ code: String,
        _ message: String,
        retryAfterSeconds: Int? = nil,
        messageCode: String? = nil
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
        self.messageCode = messageCode
    }

    public var description: String { "\(status.code) \(code): \(message)" }

    static func badRequest(_ message: String, code: String = "BAD_REQUEST") -> APIError {
        APIError(.badRequest, code, message)
    }

    static func notFound(_ code: String, _ message: String) -> APIError {
        APIError(.notFound, code, message)
    }

    static let appNotFound = APIError(.notFound, "APP_NOT_FOUND", "There is no app with this ID.")
    static let unauthorized = APIError(.unauthorized, "UNAUTHORIZED", "A valid bearer token is required.")
    static let tokenExpired = APIError(.unauthorized, "TOKEN_EXPIRED", "The session has expired; sign in again.")
    static let adminRequired = APIError(.unauthorized, "ADMIN_TOKEN_REQUIRED", "A valid admin token is required.")
    static let signInFailed = APIError(.unauthorized, "AUTH_FAILED", "Wrong user name or password.")
    static let passwordSignInOff = APIError(
        .forbidden,
        "OAUTH2_REQUIRED",
        "This app signs people in with OAuth 2.0, not with a password here."
    )
    static let registrationLocked = APIError(
        .forbidden,
        "TRAFFIC_REG_LOCKED",
        "An administrator locked this device; sign in again to unlock it.",
        messageCode: "TRAFFIC_REG_LOCKED"
    )
    static let registrationWiped = APIError(
        .forbidden,
        "TRAFFIC_REG_WIPED",
        "An administrator wiped this device; its data for this user must be erased.",
        messageCode: "TRAFFIC_REG_WIPED"
    )
    static let deviceNotRegistered = APIError(
        .forbidden,
        "DEVICE_NOT_REGISTERED",
        "Register this device (PUT /apps/{appID}/devices/{deviceID}) before reading the app's data or uploading logs."
    )
    static func throttled(retryAfter seconds: Int) -> APIError {
        APIError(
            .tooManyRequests,
            "AUTH_THROTTLED",
            "Too many failed sign-ins; try again in \(seconds) seconds.",
            retryAfterSeconds: seconds
        )
    }
    static func recoveryThrottled(retryAfter seconds: Int) -> APIError {
        APIError(
            .tooManyRequests,
            "RECOVERY_THROTTLED",
            "This device's recovery secret was given out too often; try again in \(seconds) seconds.",
            retryAfterSeconds: seconds
        )
    }
    static func logUploadThrottled(retryAfter seconds: Int) -> APIError {
        APIError(
            .tooManyRequests,
            "LOG_UPLOAD_THROTTLED",
            "This device uploaded logs too often; try again in \(seconds) seconds.",
            retryAfterSeconds: seconds
        )
    }
    /// Too many password checks run and wait: refused before queueing, so a flood
    /// cannot hold everyone's sign-in behind it.
    static let busy = APIError(
        .serviceUnavailable,
        "SERVER_BUSY",
        "The server is checking too many sign-ins; try again in a second.",
        retryAfterSeconds: 1
    )
    static func storage(_ error: StorageError) -> APIError {
        switch error.code {
        case .duplicate: APIError(.conflict, "CONFLICT", "It exists already.")
        case .invalidText: APIError(.badRequest, "INVALID_TEXT", "A text holds a character the server cannot store.")
        case .limitReached: APIError(.conflict, "LIMIT_REACHED", "The server's limit for this kind of data is reached.")
        case .unavailable, .corrupt:
            APIError(.serviceUnavailable, "STORAGE_UNAVAILABLE", "The server's database is not available; try again.")
        }
    }
}
