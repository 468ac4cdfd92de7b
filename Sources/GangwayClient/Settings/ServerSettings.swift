public import Foundation
import GangwayPolicy
public import GangwayProtocol
import Logging

/// What the settings exchange told the device, read into Gangway's types.
public struct ServerSettings: Sendable, Hashable, Codable {
    /// The passcode the app requires; `nil` when the server has no policy (the app's
    /// default then applies), and in the copy a device keeps (``ServiceAccount``), where
    /// the store's own policy is the one in force.
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
    /// The least seconds between two uploads of the device's logs, as the server set
    /// them; `nil`: ``GangwayProtocol/LogUploadSchedule/defaultIntervalSeconds``.
    public var logUploadIntervalSeconds: Int?

    /// The least time between two uploads of the device's logs.
    public var logUploadInterval: Duration {
        .seconds(logUploadIntervalSeconds ?? LogUploadSchedule.defaultIntervalSeconds)
    }
    /// The EULA version users must accept, when the server names one (else the app's own).
    public var eulaVersion: String?
    /// The consent version users must accept, when the app has one.
    public var consentVersion: String?
    /// What devices may change offline, by entity set; `nil` or a set left out: nothing.
    public var entitySetRules: [String: EntitySetRules]?
    /// How many days the server remembers removed entities when the app says
    /// (`removalsKeptDays`); `nil`: ``GangwayProtocol/APIDefaults/removalsKeptDays``. A copy
    /// older than that is read again from the start at its next sync.
    public var removalsKeptDays: Int?
    /// The schemas of the entity sets that have one (from the settings exchange only):
    /// the device checks its changes against them, and builds its local store from them.
    public var entitySchemas: [String: EntitySchema]?
    /// The server's key that pending changes are sealed to (from the settings exchange
    /// only; an admin's view of an app has none).
    public var changeSealingKey: Data?

    public init(
        passcodeRequirement: PasscodeRequirement? = nil,
        allowsUploadOfPreviousUserChanges: Bool = APIDefaults.allowsUploadOfPreviousUserChanges,
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

    /// Reads the settings a device receives (the settings exchange's body) or an admin
    /// sees on an app: the same parts, read the same way.
    /// - Throws: ``ServiceError/invalidResponse`` when the policy is invalid.
    package init(_ parts: some SettingsParts) throws(ServiceError) {
        try self.init(
            passwordPolicy: parts.passwordPolicy,
            sharedDevice: parts.sharedDeviceSettings,
            blockWiping: parts.blockWipingPolicy,
            logs: parts.logSettings,
            consent: parts.consentSettings
        )
        if let sets = parts.dataSettings?.entitySets?.additionalProperties {
            entitySetRules = sets.mapValues {
                EntitySetRules(writableFields: Set($0.writableFields), allowsCreation: $0.allowsCreation)
            }
        }
        if let days = parts.dataSettings?.removalsKeptDays, APILimits.removalsKeptDays.contains(days) {
            removalsKeptDays = days
        }
        // The server checks every write against its schemas: one this version cannot read
        // is left out here, and only the server's own check applies to its set.
        if let schemas = parts.entitySchemas?.additionalProperties {
            entitySchemas = schemas.compactMapValues { try? EntitySchema($0) }
        }
    }

    /// The one reading of the settings' parts. The passcode policy goes through
    /// GangwayProtocol's mapping, the same one the server validates an admin's change with.
    private init(
        passwordPolicy: Components.Schemas.PasswordPolicy?,
        sharedDevice: Components.Schemas.SharedDeviceSettings?,
        blockWiping: Components.Schemas.BlockWipingPolicy?,
        logs: Components.Schemas.LogSettings?,
        consent: Components.Schemas.ConsentSettings?
    ) throws(ServiceError) {
        self.init()
        if let passwordPolicy {
            do {
                passcodeRequirement = try passwordPolicy.policy().map { .required($0) } ?? .notRequired
            } catch {
                throw .invalidResponse(status: 200)
            }
        }
        allowsUploadOfPreviousUserChanges =
            sharedDevice?.allowUploadPendingChangesFromPreviousUser ?? APIDefaults.allowsUploadOfPreviousUserChanges
        lockAfterDaysWithoutContact = blockWiping?.lockAfterDays
        wipeAfterDaysWithoutContact = blockWiping?.wipeAfterDays
        logUploadEnabled = logs?.logEnabled ?? false
        if let level = logs?.logLevel.flatMap({ Logger.Level(rawValue: $0.rawValue) }) { logLevel = level }
        if let most = logs?.maxEntriesPerUpload, most > 0 { maxLogEntriesPerUpload = most }
        if let seconds = logs?.uploadIntervalSeconds, LogUploadSchedule.intervalSeconds.contains(seconds) {
            logUploadIntervalSeconds = seconds
        }
        // An empty version is how an administrator clears one.
        eulaVersion = consent?.eulaVersion.flatMap { $0.isEmpty ? nil : $0 }
        consentVersion = consent?.consentVersion.flatMap { $0.isEmpty ? nil : $0 }
    }
}

/// The parts of an app's settings, as the settings exchange and the admin API both carry
/// them.
package protocol SettingsParts {
    var passwordPolicy: Components.Schemas.PasswordPolicy? { get }
    var sharedDeviceSettings: Components.Schemas.SharedDeviceSettings? { get }
    var blockWipingPolicy: Components.Schemas.BlockWipingPolicy? { get }
    var logSettings: Components.Schemas.LogSettings? { get }
    var consentSettings: Components.Schemas.ConsentSettings? { get }
    var dataSettings: Components.Schemas.DataSettings? { get }
    var entitySchemas: Components.Schemas.SettingsExchangeBody.EntitySchemasPayload? { get }
}

extension Components.Schemas.SettingsExchangeBody: SettingsParts {}
extension Components.Schemas.AppSettings: SettingsParts {
    /// An app's settings carry no schemas: the admin reads them by set (`getEntitySchema`).
    package var entitySchemas: Components.Schemas.SettingsExchangeBody.EntitySchemasPayload? { nil }
}
