import Foundation

/// A problem with who is using the device.
///
/// Errors are equal when their kind is equal; ``onboardingID`` says which registered
/// user is meant, when there is one. Messages never contain a server user ID.
public struct UserError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case userAlreadyExists
        case userMismatch
        case unknownUser
        case serverUserMissing
        case notMultiUser
    }

    private let code: Code
    /// The registered user the error is about.
    public let onboardingID: UUID?

    private init(_ code: Code, onboardingID: UUID? = nil) {
        self.code = code
        self.onboardingID = onboardingID
    }

    /// The server user who signed in is already onboarded on this device, as
    /// ``onboardingID``: offer to restore that user instead.
    public static let userAlreadyExists = Self(.userAlreadyExists)
    /// A passcode reset was started for one user and another server user signed in;
    /// ``onboardingID`` is that other user's registration on this device, if any.
    public static let userMismatch = Self(.userMismatch)
    /// No user with that onboarding ID is registered.
    public static let unknownUser = Self(.unknownUser)
    /// A shared-device flow needs to know who signed in, and no step said.
    public static let serverUserMissing = Self(.serverUserMissing)
    /// Adding or switching users needs a multi-user onboarding-ID manager.
    public static let notMultiUser = Self(.notMultiUser)

    /// The server user is already onboarded as `id`.
    public static func userAlreadyExists(_ id: UUID) -> Self { Self(.userAlreadyExists, onboardingID: id) }
    /// Another server user signed in; `id` is their registration here, if any.
    public static func userMismatch(_ id: UUID?) -> Self { Self(.userMismatch, onboardingID: id) }
    /// No user `id` is registered.
    public static func unknownUser(_ id: UUID) -> Self { Self(.unknownUser, onboardingID: id) }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String {
        switch code {
        case .userAlreadyExists:
            "this user is already onboarded on the device" + (onboardingID.map { " as \($0)" } ?? "")
        case .userMismatch:
            "another user signed in than the one whose passcode is being reset"
        case .unknownUser:
            "no such user on this device" + (onboardingID.map { " (\($0))" } ?? "")
        case .serverUserMissing:
            "no step said which server user signed in"
        case .notMultiUser:
            "the device is set up for a single user"
        }
    }
}
