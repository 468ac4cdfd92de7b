import Foundation
import GangwayPolicy
import GangwayProtocol

/// The console's form of an app's settings exchange: each setting once, in the sections a
/// person reads them in, read from the app as the admin API gives it and sent back as the
/// admin API's own update, which checks every value. The passcode policy's entries are
/// GangwayPolicy's field table (``GangwayPolicy/PasscodePolicy/fields``), so a new rule
/// appears here with no change; the ranges are the API's (``APILimits``).
package enum AppSettingsForm {
    /// One setting: the key the form sends it under (the settings exchange's own), its
    /// label and what it holds.
    package struct Setting: Sendable {
        package var key: String
        package var label: String
        package var hint: String?
        package var kind: AppSettingsPage.Field.Kind
    }

    /// Why a form could not be read: a text where a number belongs, or a choice the form
    /// does not offer. Its message names the setting.
    package struct Invalid: Error, Sendable {
        package var message: String
        /// The setting it is about, when it is one of the form's.
        package var key: String? = nil

        package init(message: String, key: String? = nil) {
            self.message = message
            self.key = key
        }
    }

    package static let name = Setting(key: "name", label: "Name", kind: .text(maxLength: APILimits.name.upperBound))
    package static let emailDomains = Setting(
        key: "emailDomains",
        label: "Work email domains",
        hint: "Separated by commas or spaces. A person who types an address at one of them is sent to this app.",
        kind: .text(maxLength: 4096)
    )
    package static let minimumVersion = Setting(
        key: "minimumVersion",
        label: "Oldest app version allowed",
        hint: "Older versions show an update screen and stop. Leave it empty to let every version run.",
        kind: .text(maxLength: APILimits.minimumVersion.upperBound)
    )
    package static let passcodeRequired = Setting(
        key: PasscodePolicy.SettingsKey.enabled,
        label: "Require a passcode",
        kind: .flag
    )
    package static let previousUserChanges = Setting(
        key: "allowUploadPendingChangesFromPreviousUser",
        label: "Allow upload of pending changes from the previous user",
        hint:
            "On a shared device, the next person's session sends what the previous person changed offline, as theirs.",
        kind: .flag
    )
    package static let lockAndWipe = Setting(
        key: "blockWipeEnabled",
        label: "Lock and erase devices that stay out of contact",
        kind: .flag
    )
    package static let lockDays = Setting(
        key: "blockDisconnectedPeriod",
        label: "Days without contact before the app locks until the next sign-in",
        hint: "Set 0 to never lock.",
        kind: .number(APILimits.disconnectedDays)
    )
    package static let wipeDays = Setting(
        key: "wipeDisconnectedPeriod",
        label: "Days without contact before the app erases the person's data",
        hint: "Set 0 to never erase. No sooner than the app locks.",
        kind: .number(APILimits.disconnectedDays)
    )
    package static let logsEnabled = Setting(key: "logEnabled", label: "Devices may upload their logs", kind: .flag)
    package static let logLevel = Setting(
        key: "logLevel",
        label: "Lowest level uploaded",
        kind: .choice(Components.Schemas.LogSettings.LogLevelPayload.allCases.map(\.rawValue).filter { !$0.isEmpty })
    )
    package static let logEntries = Setting(
        key: "maxEntriesPerUpload",
        label: "Most entries per upload",
        kind: .number(APILimits.logEntriesPerUpload)
    )
    package static let logInterval = Setting(
        key: "uploadIntervalSeconds",
        label: "Least seconds between two uploads of a device",
        kind: .number(APILimits.logUploadIntervalSeconds)
    )
    package static let eulaVersion = Setting(
        key: "eulaVersion",
        label: "Version of the terms of use",
        hint: "A new version is asked of each person at their next launch. Leave it empty to ask for none.",
        kind: .text(maxLength: APILimits.agreementVersion.upperBound)
    )
    package static let consentVersion = Setting(
        key: "consentVersion",
        label: "Version of the privacy consent",
        hint: "A new version is asked of each person at their next launch. Leave it empty to ask for none.",
        kind: .text(maxLength: APILimits.agreementVersion.upperBound)
    )
    package static let resetKeepsData = Setting(
        key: "passcodeResetKeepsData",
        label: "A forgotten passcode can be reset without losing the data",
        hint: "Turning it off destroys every recovery secret the server holds for the app's devices.",
        kind: .flag
    )

    package static let removalsKeptDays = Setting(
        key: "removalsKeptDays",
        label: "Days removed entities are remembered",
        hint:
            "A device away longer reads its sets again from the start at its next sync; its pending changes are kept.",
        kind: .number(APILimits.removalsKeptDays)
    )

    /// The passcode policy's settings, from GangwayPolicy's field table.
    package static let policy: [Setting] = PasscodePolicy.fields.map { field in
        var label = field.help.replacingOccurrences(of: " (true or false)", with: "")
        if label.hasSuffix(".") { label.removeLast() }
        switch field.kind {
        case .flag: return Setting(key: field.key, label: label, kind: .flag)
        case .number(let range): return Setting(key: field.key, label: label, kind: .number(range))
        }
    }

    /// Every setting, by section.
    package static let sections: [(title: String, settings: [Setting])] = [
        ("App", [name, emailDomains, minimumVersion]),
        ("Passcode", [passcodeRequired] + policy),
        ("Shared devices", [previousUserChanges]),
        ("Out of contact", [lockAndWipe, lockDays, wipeDays]),
        ("Logs", [logsEnabled, logLevel, logEntries, logInterval]),
        ("Agreements", [eulaVersion, consentVersion]),
        ("Passcode reset", [resetKeepsData]),
        ("Offline data", [removalsKeptDays]),
    ]

    /// The form's values for `app`, by key: `on` for a flag that is set, as a browser
    /// sends it.
    package static func values(of app: Components.Schemas.App) -> [String: String] {
        let settings = app.settings
        let defaults = Components.Schemas.AppSettings.defaults
        func flag(_ value: Bool?, _ fallback: Bool?) -> String { (value ?? fallback ?? false) ? "on" : "" }
        func number(_ value: Int?, _ fallback: Int?) -> String { String(value ?? fallback ?? 0) }
        var values: [String: String] = [
            name.key: app.name,
            emailDomains.key: app.emailDomains.joined(separator: ", "),
            minimumVersion.key: app.minimumVersion ?? "",
            passcodeRequired.key: (settings.passwordPolicy?.isEnabled ?? true) ? "on" : "",
        ]
        let policy = settings.passwordPolicy.flatMap { try? PasscodePolicy($0) } ?? .standard
        for (key, value) in policy.settings {
            switch value {
            case .flag(let flag): values[key] = flag ? "on" : ""
            case .number(let number): values[key] = String(number)
            }
        }
        values[previousUserChanges.key] = flag(
            settings.sharedDeviceSettings?.allowUploadPendingChangesFromPreviousUser,
            APIDefaults.allowsUploadOfPreviousUserChanges
        )
        let offline = settings.blockWipingPolicy
        values[lockAndWipe.key] = flag(offline?.blockWipeEnabled, false)
        values[lockDays.key] = number(offline?.blockDisconnectedPeriod, 0)
        values[wipeDays.key] = number(offline?.wipeDisconnectedPeriod, 0)
        let logs = settings.logSettings
        let standard = defaults.logSettings
        values[logsEnabled.key] = flag(logs?.logEnabled, false)
        values[logLevel.key] = (logs?.logLevel ?? standard?.logLevel)?.rawValue ?? "info"
        values[logEntries.key] = number(logs?.maxEntriesPerUpload, standard?.maxEntriesPerUpload)
        values[logInterval.key] = number(logs?.uploadIntervalSeconds, standard?.uploadIntervalSeconds)
        values[eulaVersion.key] = settings.consentSettings?.eulaVersion ?? ""
        values[consentVersion.key] = settings.consentSettings?.consentVersion ?? ""
        values[resetKeepsData.key] = flag(
            settings.recoverySettings?.passcodeResetKeepsData,
            APIDefaults.passcodeResetKeepsData
        )
        values[removalsKeptDays.key] = number(settings.dataSettings?.removalsKeptDays, APIDefaults.removalsKeptDays)
        return values
    }

    /// The form's sections with `values`, disabled unless the operator may change them,
    /// and `refusal` said beside the setting it is about.
    package static func pageSections(
        _ values: [String: String],
        canEdit: Bool,
        refusal: Invalid? = nil
    ) -> [AppSettingsPage.Section] {
        sections.map { section in
            AppSettingsPage.Section(
                title: section.title,
                fields: section.settings.map {
                    var field = AppSettingsPage.Field(
                        key: $0.key,
                        label: $0.label,
                        hint: $0.hint,
                        kind: $0.kind,
                        value: values[$0.key] ?? "",
                        disabled: !canEdit
                    )
                    if let refusal, refusal.key == $0.key { field.error = refusal.message }
                    return field
                }
            )
        }
    }

    /// A refusal of the API (`passwordPolicyMinLength must be between 1 and 256.`) in the
    /// form's words: each setting the API names by its key named by its label, and the
    /// first one named is the setting it is about.
    package static func inFormWords(_ message: String) -> Invalid {
        // Longest first, so that a key that starts another is not taken for it.
        let every = sections.flatMap(\.settings).sorted { $0.key.count > $1.key.count }
        let named = every.compactMap { setting in
            Self.word(setting.key, in: message).map { (at: $0.lowerBound, setting: setting) }
        }
        var text = message
        for (_, setting) in named {
            var from = text.startIndex
            while let found = Self.word(setting.key, in: text, from: from) {
                let label = "“\(setting.label)”"
                let offset = text.distance(from: text.startIndex, to: found.lowerBound) + label.count
                text.replaceSubrange(found, with: label)
                from = text.index(text.startIndex, offsetBy: offset)
            }
        }
        return Invalid(message: Self.capitalised(text), key: named.min { $0.at < $1.at }?.setting.key)
    }

    /// Where `key` stands in `text` as a word of its own (`name`, never in `username` or
    /// `myname.com`).
    private static func word(
        _ key: String,
        in text: String,
        from first: String.Index? = nil
    ) -> Range<String.Index>? {
        func isPartOfWord(_ character: Character?) -> Bool {
            guard let character else { return false }
            return character.isLetter || character.isNumber || character == "_" || character == "-"
        }
        var start = first ?? text.startIndex
        while let found = text.range(of: key, range: start..<text.endIndex) {
            let before = found.lowerBound == text.startIndex ? nil : text[text.index(before: found.lowerBound)]
            let after = found.upperBound == text.endIndex ? nil : text[found.upperBound]
            // A dot after a word ends a sentence unless a name goes on after it (myname.com).
            let continues =
                after == "." && found.upperBound < text.endIndex
                && isPartOfWord(
                    text.index(after: found.upperBound) < text.endIndex
                        ? text[text.index(after: found.upperBound)] : nil
                )
            if !isPartOfWord(before), before != ".", !isPartOfWord(after), !continues { return found }
            start = found.upperBound
        }
        return nil
    }

    private static func capitalised(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst()
    }

    /// The admin API's update that sets every setting of the form to what `form` holds: a
    /// flag the browser did not send is off. An agreement left empty that `current` does
    /// not have is left out, so that sending the form back as shown changes nothing.
    /// - Throws: ``Invalid`` naming the setting whose value is not a whole number or not
    ///   one of the choices.
    package static func update(
        from form: [String: String],
        current: Components.Schemas.App
    ) throws(Invalid) -> Components.Schemas.AppUpdate {
        func text(_ setting: Setting) -> String { form[setting.key] ?? "" }
        func flag(_ setting: Setting) -> Bool { form[setting.key] == "on" }
        func number(_ setting: Setting) throws(Invalid) -> Int {
            let text = text(setting).trimmingCharacters(in: .whitespaces)
            guard let number = Int(text) else {
                throw Invalid(message: "\(setting.label): give a whole number.", key: setting.key)
            }
            return number
        }
        var policy: [String: PasscodePolicy.SettingValue] = [:]
        for setting in Self.policy {
            switch setting.kind {
            case .flag: policy[setting.key] = .flag(flag(setting))
            default: policy[setting.key] = .number(try number(setting))
            }
        }
        guard let level = Components.Schemas.LogSettings.LogLevelPayload(rawValue: text(logLevel)), level != ._empty_
        else { throw Invalid(message: "\(logLevel.label): choose one of the levels offered.", key: logLevel.key) }
        func agreement(_ setting: Setting, _ now: String?) -> String? {
            text(setting).isEmpty && (now ?? "").isEmpty ? nil : text(setting)
        }
        let consent = current.settings.consentSettings
        let agreements = Components.Schemas.ConsentSettings(
            eulaVersion: agreement(eulaVersion, consent?.eulaVersion),
            consentVersion: agreement(consentVersion, consent?.consentVersion)
        )
        // The days as shown are sent only when they change what applies, so that sending
        // the form back as shown changes nothing.
        let days = try number(removalsKeptDays)
        let keptDays = current.settings.dataSettings?.removalsKeptDays ?? APIDefaults.removalsKeptDays
        return Components.Schemas.AppUpdate(
            name: text(name),
            emailDomains: Self.list(text(emailDomains)),
            minimumVersion: text(minimumVersion),
            settings: .init(
                passwordPolicy: .init(settings: policy, enabled: flag(passcodeRequired)),
                sharedDeviceSettings: .init(allowUploadPendingChangesFromPreviousUser: flag(previousUserChanges)),
                blockWipingPolicy: .init(
                    blockWipeEnabled: flag(lockAndWipe),
                    blockDisconnectedPeriod: try number(lockDays),
                    wipeDisconnectedPeriod: try number(wipeDays)
                ),
                logSettings: .init(
                    logEnabled: flag(logsEnabled),
                    logLevel: level,
                    maxEntriesPerUpload: try number(logEntries),
                    uploadIntervalSeconds: try number(logInterval)
                ),
                consentSettings: agreements,
                recoverySettings: .init(passcodeResetKeepsData: flag(resetKeepsData)),
                dataSettings: days == keptDays ? nil : .init(removalsKeptDays: days)
            )
        )
    }

    /// The items of a comma- or space-separated list (email domains, field names), as
    /// typed: the API checks each.
    package static func list(_ text: String) -> [String] {
        text.split { $0 == "," || $0.isWhitespace }.map(String.init)
    }
}
