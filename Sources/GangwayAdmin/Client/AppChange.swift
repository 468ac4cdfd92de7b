import GangwayClient
import GangwayPolicy
import GangwayProtocol
import Logging

/// What an administrator changes about an app: only what is set changes. Devices see
/// the change at their next settings exchange.
public struct AppChange: Sendable, Hashable {
    public var name: String?
    public var emailDomains: [String]?
    /// The oldest app version still allowed; an empty string allows every version.
    public var minimumVersion: String?
    /// The passcode policy's keys to change, in the settings exchange's names (see
    /// ``PasscodePolicyChange``).
    public var passcodePolicy: PasscodePolicyChange?
    /// Whether, on a shared device, the pending changes of the previous user may be
    /// uploaded (as that user) before the next user's session opens.
    public var allowsUploadOfPreviousUserChanges: Bool?
    /// Whether a passcode reset keeps the user's data; turning it off destroys every
    /// recovery secret the app's registrations had.
    public var passcodeResetKeepsData: Bool?
    /// What devices may change offline, for the sets named: each replaces that set's
    /// rules; rules with no writable field and no creation remove the set's.
    public var entitySetRules: [String: EntitySetRules]?
    /// How many days removals of the app's entities are remembered
    /// (``GangwayProtocol/APILimits/removalsKeptDays``).
    public var removalsKeptDays: Int?
    /// The licence agreement version users must accept; an empty string clears it (the
    /// app's own version then applies).
    public var eulaVersion: String?
    /// The consent version users must answer; an empty string clears it.
    public var consentVersion: String?
    /// Whether devices may upload their logs (where their users allow it).
    public var logUpload: Bool?
    /// The lowest level of the log entries devices upload.
    public var logLevel: Logger.Level?
    /// The least seconds between two uploads of a device's logs
    /// (``GangwayProtocol/LogUploadSchedule/intervalSeconds``).
    public var logUploadIntervalSeconds: Int?

    public init(
        name: String? = nil,
        emailDomains: [String]? = nil,
        minimumVersion: String? = nil,
        passcodePolicy: PasscodePolicyChange? = nil,
        allowsUploadOfPreviousUserChanges: Bool? = nil,
        passcodeResetKeepsData: Bool? = nil,
        entitySetRules: [String: EntitySetRules]? = nil,
        removalsKeptDays: Int? = nil,
        eulaVersion: String? = nil,
        consentVersion: String? = nil,
        logUpload: Bool? = nil,
        logLevel: Logger.Level? = nil,
        logUploadIntervalSeconds: Int? = nil
    ) {
        self.logUpload = logUpload
        self.logLevel = logLevel
        self.logUploadIntervalSeconds = logUploadIntervalSeconds
        self.eulaVersion = eulaVersion
        self.consentVersion = consentVersion
        self.name = name
        self.emailDomains = emailDomains
        self.minimumVersion = minimumVersion
        self.passcodePolicy = passcodePolicy
        self.allowsUploadOfPreviousUserChanges = allowsUploadOfPreviousUserChanges
        self.passcodeResetKeepsData = passcodeResetKeepsData
        self.entitySetRules = entitySetRules
        self.removalsKeptDays = removalsKeptDays
    }

    /// Whether it changes nothing.
    public var isEmpty: Bool { self == AppChange() || self == AppChange(passcodePolicy: PasscodePolicyChange()) }

    var update: Components.Schemas.AppUpdate {
        var settings: Components.Schemas.AppSettingsUpdate?
        if passcodePolicy != nil || allowsUploadOfPreviousUserChanges != nil || passcodeResetKeepsData != nil
            || entitySetRules != nil || removalsKeptDays != nil || eulaVersion != nil || consentVersion != nil
            || logUpload != nil
            || logLevel != nil || logUploadIntervalSeconds != nil
        {
            settings = Components.Schemas.AppSettingsUpdate(
                passwordPolicy: passcodePolicy.map(\.wire),
                sharedDeviceSettings: allowsUploadOfPreviousUserChanges.map {
                    Components.Schemas.SharedDeviceSettings(allowUploadPendingChangesFromPreviousUser: $0)
                },
                logSettings: logUpload == nil && logLevel == nil && logUploadIntervalSeconds == nil
                    ? nil
                    : .init(
                        logEnabled: logUpload,
                        logLevel: logLevel.flatMap { .init(rawValue: $0.rawValue) },
                        uploadIntervalSeconds: logUploadIntervalSeconds
                    ),
                consentSettings: eulaVersion == nil && consentVersion == nil
                    ? nil : .init(eulaVersion: eulaVersion, consentVersion: consentVersion),
                recoverySettings: passcodeResetKeepsData.map { .init(passcodeResetKeepsData: $0) },
                dataSettings: entitySetRules == nil && removalsKeptDays == nil
                    ? nil
                    : .init(
                        entitySets: entitySetRules.map { sets in
                            .init(
                                additionalProperties: sets.mapValues {
                                    .init(writableFields: $0.writableFields.sorted(), allowsCreation: $0.allowsCreation)
                                }
                            )
                        },
                        removalsKeptDays: removalsKeptDays
                    )
            )
        }
        return Components.Schemas.AppUpdate(
            name: name,
            emailDomains: emailDomains,
            minimumVersion: minimumVersion,
            settings: settings
        )
    }
}

/// The passcode policy settings an administrator changes; a setting not given keeps its
/// value. The settings are GangwayPolicy's field table (``GangwayPolicy/PasscodePolicy/Field``):
///
/// ```swift
/// var change = PasscodePolicyChange()
/// change[.minimumLength] = .number(12)
/// change[.requiresDigit] = .flag(true)
/// ```
public struct PasscodePolicyChange: Sendable, Hashable {
    /// Whether the app requires a passcode at all.
    public var isRequired: Bool?
    /// The settings that change, by settings key.
    public private(set) var values: [String: PasscodePolicy.SettingValue] = [:]

    public init() {}

    /// The new value of `field`; `nil`: it keeps its value.
    public subscript(field: PasscodePolicy.Field) -> PasscodePolicy.SettingValue? {
        get { values[field.key] }
        set { values[field.key] = newValue }
    }

    var wire: Components.Schemas.PasswordPolicy {
        Components.Schemas.PasswordPolicy(settings: values, enabled: isRequired)
    }
}
