import GangwayFlows
import GangwayScreens
import Logging

/// Why a mobile-services step ended a flow.
///
/// Errors are equal when their kind is equal.
public struct ServiceFlowError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case cancelled
        case demoModeChosen
        case appVersionInactive
        case outOfContact
        case contactOverdue
        case notConfigured
    }

    private let code: Code

    private init(_ code: Code) {
        self.code = code
    }

    /// The user backed out of a screen.
    public static let cancelled = Self(.cancelled)
    /// The user chose demo mode on the welcome screen: the app shows its demo instead of
    /// onboarding. Nothing was set up.
    public static let demoModeChosen = Self(.demoModeChosen)
    /// The server says this version of the app may no longer be used.
    public static let appVersionInactive = Self(.appVersionInactive)
    /// The device stayed out of contact with the server past the app's wipe period: the
    /// user's data is erased.
    public static let outOfContact = Self(.outOfContact)
    /// The device stayed out of contact with the server past the app's lock period while
    /// it ran: the session ends, and the user must sign in again (which needs the server).
    public static let contactOverdue = Self(.contactOverdue)
    /// A restore found no saved app configuration: the device was never activated.
    public static let notConfigured = Self(.notConfigured)

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String {
        switch code {
        case .cancelled: "the user cancelled"
        case .demoModeChosen: "the user chose demo mode"
        case .appVersionInactive: "this version of the app is no longer active"
        case .outOfContact: "the device was out of contact with the server for too long; the user's data is erased"
        case .contactOverdue: "the device has not reached the server for too long; the user must sign in again"
        case .notConfigured: "the app has no configuration; activate it first"
        }
    }

    /// What happened, for the person, from the string table.
    public var message: String {
        switch code {
        case .cancelled: StringTable.text("flow.cancelled")
        case .demoModeChosen: StringTable.text("flow.demoModeChosen")
        case .appVersionInactive: StringTable.text("flow.appVersionInactive")
        case .outOfContact: StringTable.text("flow.outOfContact")
        case .contactOverdue: StringTable.text("flow.contactOverdue")
        case .notConfigured: StringTable.text("flow.notConfigured")
        }
    }
}

extension ServiceFlowError: UserDataWipeError {
    public var endsFlow: Bool { code != .notConfigured }
    public var wipesUserData: Bool { code == .outOfContact }
    public var wipeReason: String { wipesUserData ? message : "" }
}

extension ServiceFlowError: SessionEndingError {
    public var endsSession: Bool { code == .contactOverdue }
    public var sessionEndReason: String { StringTable.text("service.contactOverdue") }
}

extension ServiceError: SessionEndingError {
    /// The server no longer takes the session: it expired or was revoked (as when an
    /// administrator blocks the user), or the device was locked.
    public var endsSession: Bool {
        self == .sessionExpired || self == .registrationLocked
    }
    public var sessionEndReason: String { summary }
}

extension ServiceError: UserDataWipeError {
    /// Whether no retry can cure it: a wiped registration.
    public var endsFlow: Bool { self == .registrationWiped }
    public var wipesUserData: Bool { self == .registrationWiped }
    public var wipeReason: String { wipesUserData ? StringTable.text("service.registrationWiped.erased") : "" }
}
