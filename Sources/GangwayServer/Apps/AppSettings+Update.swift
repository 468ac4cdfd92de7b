import GangwayPolicy
import GangwayProtocol
import HTTPTypes

extension Components.Schemas.AppSettings {
    /// Whether a passcode reset keeps the user's data (the server keeps and releases a
    /// recovery secret per registration); true unless an admin turned it off.
    var passcodeResetKeepsData: Bool { recoverySettings?.passcodeResetKeepsData ?? APIDefaults.passcodeResetKeepsData }

    /// How many days removals of the app's entities are remembered.
    var removalsKeptDays: Int { dataSettings?.removalsKeptDays ?? APIDefaults.removalsKeptDays }

    /// What devices may do to `entitySet`; `nil` when they may not change it.
    func rules(for entitySet: String) -> EntitySetRules? {
        guard let rules = dataSettings?.entitySets?.additionalProperties[entitySet] else { return nil }
        return EntitySetRules(writableFields: Set(rules.writableFields), allowsCreation: rules.allowsCreation)
    }

    /// These settings with the keys `update` carries replaced.
    /// - Throws: 400 `INVALID_SETTING` when the update names more entity sets than an app
    ///   may have, even to remove them.
    func merging(_ update: Components.Schemas.AppSettingsUpdate?) throws(APIError) -> Self {
        guard let update else { return self }
        var result = self
        if let policy = update.passwordPolicy {
            result.passwordPolicy = (passwordPolicy ?? .init()).merging(policy)
        }
        if let shared = update.sharedDeviceSettings?.allowUploadPendingChangesFromPreviousUser {
            result.sharedDeviceSettings = .init(allowUploadPendingChangesFromPreviousUser: shared)
        }
        if let block = update.blockWipingPolicy {
            let current = blockWipingPolicy ?? .init()
            result.blockWipingPolicy = .init(
                blockWipeEnabled: block.blockWipeEnabled ?? current.blockWipeEnabled,
                blockDisconnectedPeriod: block.blockDisconnectedPeriod ?? current.blockDisconnectedPeriod,
                wipeDisconnectedPeriod: block.wipeDisconnectedPeriod ?? current.wipeDisconnectedPeriod
            )
        }
        if let logs = update.logSettings {
            let current = logSettings ?? .init()
            result.logSettings = .init(
                logEnabled: logs.logEnabled ?? current.logEnabled,
                logLevel: logs.logLevel ?? current.logLevel,
                maxEntriesPerUpload: logs.maxEntriesPerUpload ?? current.maxEntriesPerUpload,
                uploadIntervalSeconds: logs.uploadIntervalSeconds ?? current.uploadIntervalSeconds
            )
        }
        if let keeps = update.recoverySettings?.passcodeResetKeepsData {
            result.recoverySettings = .init(passcodeResetKeepsData: keeps)
        }
        if let sets = update.dataSettings?.entitySets?.additionalProperties {
            guard sets.count <= APILimits.entitySets.upperBound else {
                throw invalid("entitySets", "holds at most \(APILimits.entitySets.upperBound) entity sets")
            }
            var current = dataSettings?.entitySets?.additionalProperties ?? [:]
            for (name, rules) in sets {
                // The fields are a set: the same ones in another order change nothing.
                if let kept = current[name], kept.allowsCreation == rules.allowsCreation,
                    kept.writableFields.count == rules.writableFields.count,
                    Set(kept.writableFields) == Set(rules.writableFields)
                {
                    continue
                }
                current[name] = rules.writableFields.isEmpty && !rules.allowsCreation ? nil : rules
            }
            result.dataSettings = .init(
                entitySets: .init(additionalProperties: current),
                removalsKeptDays: result.dataSettings?.removalsKeptDays
            )
        }
        if let days = update.dataSettings?.removalsKeptDays {
            var data = result.dataSettings ?? .init()
            data.removalsKeptDays = days
            result.dataSettings = data
        }
        if let consent = update.consentSettings {
            let current = consentSettings ?? .init()
            result.consentSettings = .init(
                eulaVersion: consent.eulaVersion ?? current.eulaVersion,
                consentVersion: consent.consentVersion ?? current.consentVersion
            )
        }
        return result
    }

    /// Checks every value against the ranges the document states and the rules that
    /// must not contradict each other.
    func validated() throws(APIError) -> Self {
        do {
            _ = try PasscodePolicy(passwordPolicy ?? .init())
        } catch {
            // One validation for the policy, the one the device runs on what it receives.
            if error == .conflictingRules {
                throw conflicting(error.reason)
            }
            throw invalid(error.key ?? "passwordPolicy", error.reason)
        }
        try check(blockWipingPolicy?.blockDisconnectedPeriod, "blockDisconnectedPeriod", APILimits.disconnectedDays)
        try check(blockWipingPolicy?.wipeDisconnectedPeriod, "wipeDisconnectedPeriod", APILimits.disconnectedDays)
        // A device erases its data no sooner than it locks: erasing first would leave
        // nothing for the lock to hold.
        if let lock = blockWipingPolicy?.lockAfterDays, let wipe = blockWipingPolicy?.wipeAfterDays, wipe < lock {
            throw conflicting(
                "wipeDisconnectedPeriod (\(wipe) days) is shorter than blockDisconnectedPeriod (\(lock) days); "
                    + "a device would erase its data before it locks"
            )
        }
        try check(logSettings?.maxEntriesPerUpload, "maxEntriesPerUpload", APILimits.logEntriesPerUpload)
        try check(logSettings?.uploadIntervalSeconds, "uploadIntervalSeconds", LogUploadSchedule.intervalSeconds)
        try check(dataSettings?.removalsKeptDays, "removalsKeptDays", APILimits.removalsKeptDays)
        let sets = dataSettings?.entitySets?.additionalProperties ?? [:]
        if sets.count > APILimits.entitySets.upperBound {
            throw invalid("entitySets", "holds at most \(APILimits.entitySets.upperBound) entity sets")
        }
        for (name, rules) in sets {
            do {
                try Validation.identifier(name, "entitySet")
            } catch {
                throw invalid("entitySets", "names sets as the data routes do (letters, digits, '-', '_', '.')")
            }
            guard rules.writableFields.count <= EntityLimits.fieldsPerEntity,
                Set(rules.writableFields).count == rules.writableFields.count,
                rules.writableFields.allSatisfy(EntityLimits.isFieldName)
            else {
                throw invalid("writableFields", "must be at most 64 distinct field names")
            }
        }
        // The generator turns the document's `null` level into an empty-string case; a
        // JSON null never reaches it, so an empty string is a value outside the enum.
        if logSettings?.logLevel == ._empty_ {
            throw invalid("logLevel", "must be one of the levels the document lists")
        }
        for (name, value) in [
            ("eulaVersion", consentSettings?.eulaVersion), ("consentVersion", consentSettings?.consentVersion),
        ] {
            guard let value else { continue }
            do {
                try Validation.text(value, name, APILimits.agreementVersion)
            } catch {
                throw invalid(
                    name,
                    "must be at most \(APILimits.agreementVersion.upperBound) characters, without control characters"
                )
            }
        }
        return self
    }

    private func check(_ value: Int?, _ key: String, _ range: ClosedRange<Int>) throws(APIError) {
        if let value, !range.contains(value) {
            throw invalid(key, "must be between \(range.lowerBound) and \(range.upperBound)")
        }
    }

    /// Rules that contradict each other, in the request or with what the app has: each
    /// value is valid alone, so this is a conflict (409), not a malformed request.
    private func conflicting(_ reason: String) -> APIError {
        APIError(.conflict, .conflictingSettings, "The settings contradict each other: \(reason).")
    }

    private func invalid(_ key: String, _ reason: String) -> APIError {
        APIError.badRequest("\(key) \(reason).", code: .invalidSetting)
    }
}
