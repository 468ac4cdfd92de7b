import Foundation
import GangwayFlows
import GangwayProtocol
import GangwayStore
import Logging

/// What the settings exchange told the device, read into Gangway's types.
public struct ServerSettings: Sendable, Hashable, Codable {
    /// The passcode the app requires; `nil` when the server has no policy (the app's
    /// default then applies).
    public var passcodeRequirement: PasscodeRequirement?
    /// On a shared device: whether the previous user's pending changes may be uploaded
    /// before the next user's session opens.
    public var allowsUploadOfPreviousUserChanges: Bool
    /// Days without server contact after which the app locks until the next sign-in;
    /// `nil`: never.
    public var lockAfterDaysWithoutContact: Int?
    /// Days without server contact after which the app erases the user's data; `nil`: never.
    public var wipeAfterDaysWithoutContact: Int?
    /// Whether the device may upload its logs.
    public var logUploadEnabled: Bool
    /// The lowest level worth uploading.
    public var logLevel: Logger.Level
    /// The most entries one upload may carry.
    public var maxLogEntriesPerUpload: Int
    /// The EULA version users must accept, when the app has one.
    public var eulaVersion: String?
    /// The consent version users must accept, when the app has one.
    public var consentVersion: String?

    public init(
        passcodeRequirement: PasscodeRequirement? = nil,
        allowsUploadOfPreviousUserChanges: Bool = false,
        lockAfterDaysWithoutContact: Int? = nil,
        wipeAfterDaysWithoutContact: Int? = nil,
        logUploadEnabled: Bool = false,
        logLevel: Logger.Level = .info,
        maxLogEntriesPerUpload: Int = 1000,
        eulaVersion: String? = nil,
        consentVersion: String? = nil
    ) {
        self.passcodeRequirement = passcodeRequirement
        self.allowsUploadOfPreviousUserChanges = allowsUploadOfPreviousUserChanges
        self.lockAfterDaysWithoutContact = lockAfterDaysWithoutContact
        self.wipeAfterDaysWithoutContact = wipeAfterDaysWithoutContact
        self.logUploadEnabled = logUploadEnabled
        self.logLevel = logLevel
        self.maxLogEntriesPerUpload = maxLogEntriesPerUpload
        self.eulaVersion = eulaVersion
        self.consentVersion = consentVersion
    }

    /// Reads the settings exchange's body. The passcode policy goes through
    /// ``GangwayStore/PasscodePolicy/fromSettings(_:defaults:)``, so its keys are read
    /// exactly as the store's own reader reads them.
    /// - Throws: ``ServiceError/invalidResponse`` when the policy is invalid.
    init(_ body: Components.Schemas.SettingsExchangeBody) throws(ServiceError) {
        self.init()
        if let policy = body.passwordPolicy {
            do {
                let json = try JSONEncoder().encode(["passwordPolicy": policy])
                passcodeRequirement = try PasscodePolicy.fromSettings(json).map { .required($0) } ?? .notRequired
            } catch {
                throw .invalidResponse(status: 200)
            }
        }
        allowsUploadOfPreviousUserChanges =
            body.sharedDeviceSettings?.allowUploadPendingChangesFromPreviousUser ?? false
        if let blockWipe = body.blockWipingPolicy, blockWipe.blockWipeEnabled == true {
            lockAfterDaysWithoutContact = blockWipe.blockDisconnectedPeriod.flatMap { $0 > 0 ? $0 : nil }
            wipeAfterDaysWithoutContact = blockWipe.wipeDisconnectedPeriod.flatMap { $0 > 0 ? $0 : nil }
        }
        logUploadEnabled = body.logSettings?.logEnabled ?? false
        if let level = body.logSettings?.logLevel.flatMap({ Logger.Level(rawValue: $0.rawValue) }) { logLevel = level }
        if let most = body.logSettings?.maxEntriesPerUpload, most > 0 { maxLogEntriesPerUpload = most }
        eulaVersion = body.consentSettings?.eulaVersion
        consentVersion = body.consentSettings?.consentVersion
    }
}

extension FlowInfoKey where Value == ServerSettings {
    /// The settings the settings download found on the server.
    public static var serverSettings: Self { Self("gangway.serverSettings") }
}
