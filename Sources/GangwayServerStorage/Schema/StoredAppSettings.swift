import GangwayProtocol

/// An app's settings as the `apps.settings` column keeps them: a shape storage owns, so
/// that renaming or reshaping a field of the API changes no stored row.
///
/// Each property's name is its key in the stored JSON, and the shape has a version, in
/// the column `apps.settings_version`. Rows written before the shape was storage's own
/// (schema v18) had the API's field names of that day, which are this shape's names, so
/// the migration records them as version 1 and rewrites nothing. A later shape gets the
/// next version, and reads the earlier ones; a row of a version this server does not
/// know (written by a newer one) is refused as ``StorageError/Code/corrupt``, never
/// guessed at.
struct StoredAppSettings: Codable, Equatable {
    /// The version of the shape this server writes.
    static let version: Int64 = 1

    var passwordPolicy: Passcode?
    var sharedDeviceSettings: SharedDevice?
    var blockWipingPolicy: BlockWipe?
    var logSettings: Logs?
    var consentSettings: Consent?
    var recoverySettings: Recovery?
    var dataSettings: DataSets?

    struct Passcode: Codable, Equatable {
        var passwordPolicyEnabled: Bool?
        var passwordPolicyMinLength: Int?
        var passwordPolicyIsDigitsOnly: Bool?
        var passwordPolicyDigitRequired: Bool?
        var passwordPolicyUpperRequired: Bool?
        var passwordPolicyLowerRequired: Bool?
        var passwordPolicySpecialRequired: Bool?
        var passwordPolicyMinUniqueChars: Int?
        var passwordPolicyRetryLimit: Int?
        var passwordPolicyLockTimeout: Int?
        var passwordPolicyExpiresInNDays: Int?
        var passwordPolicyHistorySize: Int?
        var passwordPolicyFingerprintEnabled: Bool?
        var passwordPolicyAllowsSkip: Bool?
        var passwordPolicyBlocksCommon: Bool?
    }

    struct SharedDevice: Codable, Equatable {
        var allowUploadPendingChangesFromPreviousUser: Bool?
    }

    struct BlockWipe: Codable, Equatable {
        var blockWipeEnabled: Bool?
        var blockDisconnectedPeriod: Int?
        var wipeDisconnectedPeriod: Int?
    }

    struct Logs: Codable, Equatable {
        var logEnabled: Bool?
        /// The level's name (`trace` … `critical`).
        var logLevel: String?
        var maxEntriesPerUpload: Int?
        var uploadIntervalSeconds: Int?
    }

    struct Consent: Codable, Equatable {
        var eulaVersion: String?
        var consentVersion: String?
    }

    struct Recovery: Codable, Equatable {
        var passcodeResetKeepsData: Bool?
    }

    struct DataSets: Codable, Equatable {
        /// By the set's name.
        var entitySets: [String: EntitySet]?
        /// Added after version 1 was fixed: rows without it read as the default, which
        /// is what they meant, and an older server reading a row with it ignores it.
        var removalsKeptDays: Int?
    }

    struct EntitySet: Codable, Equatable {
        var writableFields: [String]
        var allowsCreation: Bool
    }
}

extension StoredAppSettings {
    /// The stored shape of `settings`.
    init(_ settings: Components.Schemas.AppSettings) {
        passwordPolicy = settings.passwordPolicy.map(Passcode.init)
        sharedDeviceSettings = settings.sharedDeviceSettings.map {
            SharedDevice(allowUploadPendingChangesFromPreviousUser: $0.allowUploadPendingChangesFromPreviousUser)
        }
        blockWipingPolicy = settings.blockWipingPolicy.map {
            BlockWipe(
                blockWipeEnabled: $0.blockWipeEnabled,
                blockDisconnectedPeriod: $0.blockDisconnectedPeriod,
                wipeDisconnectedPeriod: $0.wipeDisconnectedPeriod
            )
        }
        logSettings = settings.logSettings.map {
            Logs(
                logEnabled: $0.logEnabled,
                logLevel: $0.logLevel?.rawValue,
                maxEntriesPerUpload: $0.maxEntriesPerUpload,
                uploadIntervalSeconds: $0.uploadIntervalSeconds
            )
        }
        consentSettings = settings.consentSettings.map {
            Consent(eulaVersion: $0.eulaVersion, consentVersion: $0.consentVersion)
        }
        recoverySettings = settings.recoverySettings.map { Recovery(passcodeResetKeepsData: $0.passcodeResetKeepsData) }
        dataSettings = settings.dataSettings.map { data in
            DataSets(
                entitySets: data.entitySets?.additionalProperties.mapValues {
                    EntitySet(writableFields: $0.writableFields, allowsCreation: $0.allowsCreation)
                },
                removalsKeptDays: data.removalsKeptDays
            )
        }
    }

    /// The settings this stored shape holds; a log level this server does not know
    /// throws ``StorageError/Code/corrupt``.
    func settings() throws(StorageError) -> Components.Schemas.AppSettings {
        var logLevel: Components.Schemas.LogSettings.LogLevelPayload?
        if let name = logSettings?.logLevel {
            guard let level = Components.Schemas.LogSettings.LogLevelPayload(rawValue: name) else {
                throw StorageError(.corrupt, "stored app settings name an unknown log level")
            }
            logLevel = level
        }
        return Components.Schemas.AppSettings(
            passwordPolicy: passwordPolicy?.policy,
            sharedDeviceSettings: sharedDeviceSettings.map { stored in
                .init(allowUploadPendingChangesFromPreviousUser: stored.allowUploadPendingChangesFromPreviousUser)
            },
            blockWipingPolicy: blockWipingPolicy.map { stored in
                .init(
                    blockWipeEnabled: stored.blockWipeEnabled,
                    blockDisconnectedPeriod: stored.blockDisconnectedPeriod,
                    wipeDisconnectedPeriod: stored.wipeDisconnectedPeriod
                )
            },
            logSettings: logSettings.map { stored in
                .init(
                    logEnabled: stored.logEnabled,
                    logLevel: logLevel,
                    maxEntriesPerUpload: stored.maxEntriesPerUpload,
                    uploadIntervalSeconds: stored.uploadIntervalSeconds
                )
            },
            consentSettings: consentSettings.map { stored in
                .init(eulaVersion: stored.eulaVersion, consentVersion: stored.consentVersion)
            },
            recoverySettings: recoverySettings.map { stored in
                .init(passcodeResetKeepsData: stored.passcodeResetKeepsData)
            },
            dataSettings: dataSettings.map { stored in
                .init(
                    entitySets: stored.entitySets.map { sets in
                        .init(
                            additionalProperties: sets.mapValues { set in
                                .init(writableFields: set.writableFields, allowsCreation: set.allowsCreation)
                            }
                        )
                    },
                    removalsKeptDays: stored.removalsKeptDays
                )
            }
        )
    }
}

extension StoredAppSettings.Passcode {
    init(_ wire: Components.Schemas.PasswordPolicy) {
        passwordPolicyEnabled = wire.passwordPolicyEnabled
        passwordPolicyMinLength = wire.passwordPolicyMinLength
        passwordPolicyIsDigitsOnly = wire.passwordPolicyIsDigitsOnly
        passwordPolicyDigitRequired = wire.passwordPolicyDigitRequired
        passwordPolicyUpperRequired = wire.passwordPolicyUpperRequired
        passwordPolicyLowerRequired = wire.passwordPolicyLowerRequired
        passwordPolicySpecialRequired = wire.passwordPolicySpecialRequired
        passwordPolicyMinUniqueChars = wire.passwordPolicyMinUniqueChars
        passwordPolicyRetryLimit = wire.passwordPolicyRetryLimit
        passwordPolicyLockTimeout = wire.passwordPolicyLockTimeout
        passwordPolicyExpiresInNDays = wire.passwordPolicyExpiresInNDays
        passwordPolicyHistorySize = wire.passwordPolicyHistorySize
        passwordPolicyFingerprintEnabled = wire.passwordPolicyFingerprintEnabled
        passwordPolicyAllowsSkip = wire.passwordPolicyAllowsSkip
        passwordPolicyBlocksCommon = wire.passwordPolicyBlocksCommon
    }

    /// As the API sends it.
    var policy: Components.Schemas.PasswordPolicy {
        .init(
            passwordPolicyEnabled: passwordPolicyEnabled,
            passwordPolicyMinLength: passwordPolicyMinLength,
            passwordPolicyIsDigitsOnly: passwordPolicyIsDigitsOnly,
            passwordPolicyDigitRequired: passwordPolicyDigitRequired,
            passwordPolicyUpperRequired: passwordPolicyUpperRequired,
            passwordPolicyLowerRequired: passwordPolicyLowerRequired,
            passwordPolicySpecialRequired: passwordPolicySpecialRequired,
            passwordPolicyMinUniqueChars: passwordPolicyMinUniqueChars,
            passwordPolicyRetryLimit: passwordPolicyRetryLimit,
            passwordPolicyLockTimeout: passwordPolicyLockTimeout,
            passwordPolicyExpiresInNDays: passwordPolicyExpiresInNDays,
            passwordPolicyHistorySize: passwordPolicyHistorySize,
            passwordPolicyFingerprintEnabled: passwordPolicyFingerprintEnabled,
            passwordPolicyAllowsSkip: passwordPolicyAllowsSkip,
            passwordPolicyBlocksCommon: passwordPolicyBlocksCommon
        )
    }
}
