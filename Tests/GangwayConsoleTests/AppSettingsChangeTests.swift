import GangwayConsole
import GangwayPolicy
import GangwayProtocol
import Testing

@Suite("What the console tells an admin devices do after a change of an app's settings")
struct AppSettingsChangeTests {
    static let app = Components.Schemas.App(
        appID: "checks",
        name: "Ground checks",
        authType: .basic,
        emailDomains: [],
        settings: .defaults
    )

    static func said(_ change: (inout Components.Schemas.App) -> Void) -> [String] {
        var new = app
        change(&new)
        return AppSettingsChange(old: app, new: new).consequences
    }

    @Test("the same settings: nothing changed")
    func nothing() {
        #expect(Self.said { _ in } == ["Nothing changed."])
    }

    @Test("passcode rules: stricter, looser, turned off; the limits apply without asking")
    func passcode() {
        func policy(_ change: @escaping (inout PasscodePolicy) -> Void) -> (inout Components.Schemas.App) -> Void {
            { app in
                var policy = PasscodePolicy.standard
                change(&policy)
                app.settings.passwordPolicy = .init(policy)
            }
        }
        #expect(Self.said(policy { $0.minimumLength = 10 }).first?.hasPrefix("Stricter passcode rules") == true)
        #expect(Self.said(policy { $0.minimumLength = 6 }).first?.hasPrefix("Looser passcode rules") == true)
        #expect(
            Self.said(policy { $0.lockTimeout = .seconds(60) })
                == ["The app asks for the passcode after 60 seconds in the background; nothing is asked now."]
        )
        #expect(
            Self.said(policy { $0.allowsBiometrics = false }) == [
                "Biometric unlock is turned off: the passcode opens the app."
            ]
        )
        let off = Self.said { $0.settings.passwordPolicy = .init(.standard, enabled: false) }
        #expect(off.count == 1 && off[0].hasPrefix("No passcode is required any more"))
    }

    @Test("shared devices, contact, logs, version, agreements, recovery and retention each say what devices do")
    func others() {
        #expect(
            Self.said { $0.settings.dataSettings = .init(removalsKeptDays: 7) } == [
                "Removed entities are remembered 7 days: a device away longer reads its sets again from the start at its next sync."
            ]
        )
        #expect(
            Self.said { $0.settings.dataSettings = .init(removalsKeptDays: APIDefaults.removalsKeptDays) }
                == ["Nothing changed."],
            "the default, said aloud"
        )
        #expect(
            Self.said { $0.settings.sharedDeviceSettings = .init(allowUploadPendingChangesFromPreviousUser: false) }
                == ["On a shared device, changes left pending wait on the device until their author signs in again."]
        )
        #expect(
            Self.said {
                $0.settings.blockWipingPolicy = .init(
                    blockWipeEnabled: true,
                    blockDisconnectedPeriod: 7,
                    wipeDisconnectedPeriod: 30
                )
            } == [
                "A device out of contact for 7 days locks until the next sign-in.",
                "A device out of contact for 30 days erases the person's data.",
            ]
        )
        #expect(
            Self.said { $0.settings.blockWipingPolicy = .init(blockWipeEnabled: false, blockDisconnectedPeriod: 7) }
                == ["Nothing changed."],
            "periods without the switch do nothing"
        )
        #expect(
            Self.said { $0.settings.logSettings?.logEnabled = true }.first?.hasPrefix(
                "Devices upload their logs from level info"
            ) == true
        )
        #expect(
            Self.said { $0.minimumVersion = "2.0" } == [
                "App versions older than 2.0 show an update screen at their next launch and stop there."
            ]
        )
        #expect(
            Self.said { $0.settings.consentSettings = .init(eulaVersion: "3", consentVersion: "") }
                == ["Each person is asked to accept the terms of use, version 3, at their next launch."],
            "an empty version is none, as before"
        )
        #expect(
            Self.said { $0.settings.recoverySettings = .init(passcodeResetKeepsData: false) }.first?.hasPrefix(
                "Every recovery secret"
            ) == true
        )
    }
}
