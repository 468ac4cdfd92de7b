import GangwayPolicy
import GangwayProtocol

/// What devices do at their next contact with the server after an app's settings moved
/// from `old` to `new`, in the words the console shows an admin who saved the change:
/// one sentence per setting that changed, none when nothing did.
package struct AppSettingsChange: Sendable {
    package var old: Components.Schemas.App
    package var new: Components.Schemas.App

    package init(old: Components.Schemas.App, new: Components.Schemas.App) {
        self.old = old
        self.new = new
    }

    package var consequences: [String] {
        var said: [String] = []
        if old.name != new.name { said.append("Devices show the app's new name, \(new.name).") }
        said += passcode + version + shared + contact + logs + agreements + recovery + retention
        return said.isEmpty ? ["Nothing changed."] : said
    }

    private var passcode: [String] {
        let before = old.settings.passwordPolicy ?? .init()
        let after = new.settings.passwordPolicy ?? .init()
        guard let policy = try? after.policy() else {
            return before.isEnabled
                ? [
                    "No passcode is required any more: devices turn the passcode and biometric unlock off at the next unlock."
                ]
                : []
        }
        guard let previous = try? before.policy() else {
            return [
                policy.allowsSkip
                    ? "A passcode is offered: each person may set one, or go without, at their next unlock."
                    : "A passcode is required: each person sets one at their next unlock."
            ]
        }
        var said: [String] = []
        switch previous.ruleChange(to: policy) {
        case .unchanged: break
        case .stricter:
            said.append(
                "Stricter passcode rules: each person chooses a new passcode that meets them at their next unlock."
            )
        case .looser:
            said.append(
                "Looser passcode rules: each person chooses a new passcode at their next unlock, and may make it simpler."
            )
        case .mixed:
            said.append("New passcode rules: each person chooses a new passcode that meets them at their next unlock.")
        }
        if previous.allowsBiometrics != policy.allowsBiometrics {
            said.append(
                policy.allowsBiometrics
                    ? "Biometric unlock is offered: each person may turn it on."
                    : "Biometric unlock is turned off: the passcode opens the app."
            )
        }
        if !previous.allowsSkip && policy.allowsSkip {
            said.append("Each person may turn the passcode off in the settings, except on a shared device.")
        }
        if previous.lockTimeout != policy.lockTimeout {
            let seconds = policy.lockTimeout.components.seconds
            said.append(
                "The app asks for the passcode after \(seconds) seconds in the background; nothing is asked now."
            )
        }
        if previous.retryLimit != policy.retryLimit {
            said.append(
                "After \(policy.retryLimit) wrong passcodes in a row the person's data on the device is erased."
            )
        }
        if previous.expiresAfterDays != policy.expiresAfterDays {
            said.append(
                policy.expiresAfterDays.map { "A passcode lasts \($0) days, then a new one is chosen." }
                    ?? "Passcodes no longer expire."
            )
        }
        return said
    }

    private var version: [String] {
        let before = old.minimumVersion ?? ""
        let after = new.minimumVersion ?? ""
        guard before != after else { return [] }
        return [
            after.isEmpty
                ? "Every app version runs."
                : "App versions older than \(after) show an update screen at their next launch and stop there."
        ]
    }

    private var shared: [String] {
        func allows(_ app: Components.Schemas.App) -> Bool {
            app.settings.sharedDeviceSettings?.allowUploadPendingChangesFromPreviousUser
                ?? APIDefaults.allowsUploadOfPreviousUserChanges
        }
        let before = allows(old)
        let after = allows(new)
        guard before != after else { return [] }
        return [
            after
                ? "On a shared device, the next person's session uploads the changes the previous person left pending, as theirs."
                : "On a shared device, changes left pending wait on the device until their author signs in again."
        ]
    }

    private var contact: [String] {
        func periods(_ settings: Components.Schemas.AppSettings) -> (lock: Int, wipe: Int) {
            (settings.blockWipingPolicy?.lockAfterDays ?? 0, settings.blockWipingPolicy?.wipeAfterDays ?? 0)
        }
        let before = periods(old.settings)
        let after = periods(new.settings)
        guard before != after else { return [] }
        if after == (0, 0) { return ["Devices no longer lock or erase for lack of contact."] }
        var said: [String] = []
        if after.lock > 0 {
            said.append("A device out of contact for \(after.lock) days locks until the next sign-in.")
        }
        if after.wipe > 0 {
            said.append("A device out of contact for \(after.wipe) days erases the person's data.")
        }
        return said
    }

    private var logs: [String] {
        let before = old.settings.logSettings ?? .init()
        let after = new.settings.logSettings ?? .init()
        guard before != after else { return [] }
        guard after.logEnabled == true else {
            return before.logEnabled == true ? ["Devices stop uploading their logs."] : []
        }
        let level = after.logLevel?.rawValue ?? "info"
        let entries = after.maxEntriesPerUpload ?? 1_000
        let interval = after.uploadIntervalSeconds ?? LogUploadSchedule.defaultIntervalSeconds
        return [
            "Devices upload their logs from level \(level) up, at most \(entries) entries at a time and once in "
                + "\(interval) seconds, as each person's consent allows."
        ]
    }

    private var agreements: [String] {
        func version(
            _ app: Components.Schemas.App,
            _ key: KeyPath<Components.Schemas.ConsentSettings, String?>
        )
            -> String
        { app.settings.consentSettings?[keyPath: key] ?? "" }
        var said: [String] = []
        for (key, name) in [
            (\Components.Schemas.ConsentSettings.eulaVersion, "terms of use"), (\.consentVersion, "privacy consent"),
        ] {
            let after = version(new, key)
            guard version(old, key) != after else { continue }
            said.append(
                after.isEmpty
                    ? "No \(name) is asked any more."
                    : "Each person is asked to accept the \(name), version \(after), at their next launch."
            )
        }
        return said
    }

    private var recovery: [String] {
        let before = old.settings.recoverySettings?.passcodeResetKeepsData ?? APIDefaults.passcodeResetKeepsData
        let after = new.settings.recoverySettings?.passcodeResetKeepsData ?? APIDefaults.passcodeResetKeepsData
        guard before != after else { return [] }
        return [
            after
                ? "From each person's next sign-in on a device, a forgotten passcode is reset with the data kept."
                : "Every recovery secret of the app's devices is destroyed: a forgotten passcode erases the person's data on the device."
        ]
    }

    private var retention: [String] {
        func days(_ app: Components.Schemas.App) -> Int {
            app.settings.dataSettings?.removalsKeptDays ?? APIDefaults.removalsKeptDays
        }
        let after = days(new)
        guard days(old) != after else { return [] }
        return [
            "Removed entities are remembered \(after) days: a device away longer reads its sets again from the start at its next sync."
        ]
    }
}
