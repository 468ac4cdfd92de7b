import Foundation
import GangwayClient
import GangwayProtocol

/// An app as the server's admin API shows it, its settings read as a device would read
/// them from the settings exchange: made from the server's answer only.
public struct ManagedApp: Sendable, Hashable {
    public var id: String
    public var name: String
    /// The work-email domains that discover the app.
    public var emailDomains: [String]
    /// The oldest app version still allowed; `nil` allows every version.
    public var minimumVersion: String?
    /// The settings every device of the app receives.
    public var settings: ServerSettings
    /// Whether a passcode reset keeps the user's data: the server then keeps a recovery
    /// secret per device registration and releases it to the same user on that device.
    public var passcodeResetKeepsData: Bool

    init(_ app: Components.Schemas.App) throws(ServiceError) {
        id = app.appID
        name = app.name
        emailDomains = app.emailDomains
        minimumVersion = app.minimumVersion.flatMap { $0.isEmpty ? nil : $0 }
        settings = try ServerSettings(app.settings)
        passcodeResetKeepsData =
            app.settings.recoverySettings?.passcodeResetKeepsData ?? APIDefaults.passcodeResetKeepsData
    }
}
