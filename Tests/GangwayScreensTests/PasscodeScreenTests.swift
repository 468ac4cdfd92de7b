import GangwayPolicy
import GangwayScreens
import Testing

@Suite("Passcode screens")
struct PasscodeScreenTests {
    static let policy = PasscodePolicy(minimumLength: 6, digitsOnly: true, allowsBiometrics: true)

    @Test func theChecklistFollowsEveryKeystroke() {
        var screen = PasscodeCreateScreen(policy: Self.policy, biometricsAvailable: false)
        #expect(!screen.entry.checklist.isAcceptable)
        _ = screen.handle(.edit("12"))
        #expect(screen.entry.checklist.failedRules.contains(.minimumLength(6)))
        _ = screen.handle(.edit("12a"))
        #expect(screen.entry.checklist.failedRules.contains(.digitsOnly))
        _ = screen.handle(.edit("271828"))
        #expect(screen.entry.checklist.isAcceptable)
        #expect(screen.entry.checklist.results.count == Self.policy.rules.count)
    }

    @Test("a change right after an unlock starts at the new passcode: the one just typed is not asked again")
    func aVerifiedCurrentPasscodeIsNotAskedAgain() {
        var screen = PasscodeChangeScreen(policy: Self.policy, allowsCancel: false, verifiedCurrent: "582016")
        #expect(screen.phase == .enter)
        _ = screen.handle(.enter("582016"))
        #expect(screen.notice == screen.strings.sameAsCurrent, "still compared with the current one")
        _ = screen.handle(.enter("271828"))
        #expect(screen.handle(.enter("271828")).outcome == .changed(current: "582016", new: "271828"))
        // After a wrong current passcode the screen asks it, whatever it was given.
        let again = PasscodeChangeScreen(policy: Self.policy, afterWrongCurrent: true, verifiedCurrent: "582016")
        #expect(again.phase == .current)
    }

    @Test func aPasscodeBreakingTheRulesIsNotTaken() {
        var screen = PasscodeCreateScreen(policy: Self.policy, biometricsAvailable: false)
        #expect(screen.handle(.enter("123")).outcome == nil)
        #expect(screen.phase == .enter)
        #expect(screen.notice == screen.strings.rejected)
        guard case .rejected(let rules)? = screen.entry.problem else {
            Issue.record("expected the rules the passcode breaks")
            return
        }
        #expect(rules.contains(.minimumLength(6)))
        #expect(!rules.contains(.digitsOnly))
    }

    @Test func aMismatchedConfirmationStartsOver() {
        var screen = PasscodeCreateScreen(policy: Self.policy, biometricsAvailable: false)
        _ = screen.handle(.enter("271828"))
        #expect(screen.phase == .confirm)
        #expect(screen.entry.text.isEmpty, "the field is cleared for the confirmation")
        _ = screen.handle(.enter("271829"))
        #expect(screen.phase == .enter)
        #expect(screen.notice == screen.strings.mismatch)
        _ = screen.handle(.enter("314159"))
        #expect(screen.handle(.back).outcome == nil)
        #expect(screen.phase == .enter, "back leaves the confirmation")
        #expect(screen.entry.text.isEmpty)
        _ = screen.handle(.enter("314159"))
        #expect(screen.handle(.enter("314159")).outcome == .created(passcode: "314159", biometrics: false))
    }

    @Test func biometricOptInOnlyWhenThePolicyAllowsAndTheDeviceHasIt() {
        for (allowed, available) in [(true, true), (true, false), (false, true)] {
            var policy = Self.policy
            policy.allowsBiometrics = allowed
            var screen = PasscodeCreateScreen(policy: policy, biometricsAvailable: available)
            _ = screen.handle(.enter("271828"))
            let step = screen.handle(.enter("271828"))
            if allowed && available {
                #expect(step.outcome == nil)
                #expect(screen.phase == .biometricOptIn)
                #expect(screen.handle(.biometrics(true)).outcome == .created(passcode: "271828", biometrics: true))
            } else {
                #expect(step.outcome == .created(passcode: "271828", biometrics: false))
            }
        }
    }

    @Test func skipOnlyWhenThePolicyAllows() {
        var strict = PasscodeCreateScreen(policy: Self.policy, biometricsAvailable: false)
        #expect(!strict.allowsSkip)
        #expect(strict.handle(.skip).outcome == nil)
        #expect(strict.notice == strict.strings.skipNotAllowed)
        var policy = Self.policy
        policy.allowsSkip = true
        var lenient = PasscodeCreateScreen(policy: policy, biometricsAvailable: false)
        #expect(lenient.allowsSkip)
        #expect(lenient.handle(.skip).outcome == .skipped)
    }

    @Test func theAppsOwnValidationCanRefuse() {
        var screen = PasscodeCreateScreen(policy: Self.policy, biometricsAvailable: false) { candidate in
            candidate.value.hasPrefix("19") ? "Do not use a year." : nil
        }
        _ = screen.handle(.enter("198406"))
        #expect(screen.notice == "Do not use a year.")
        #expect(screen.phase == .enter)
    }

    @Test func passcodeInputShowsTriesLeftAndHonoursItsButtons() {
        var first = PasscodeInputScreen(triesLeft: 10)
        #expect(first.warning == nil)
        #expect(first.handle(.enter("")).outcome == nil)
        #expect(first.notice == first.strings.empty)
        #expect(first.handle(.enter("271828")).outcome == .passcode("271828"))

        var again = PasscodeInputScreen(triesLeft: 3, afterWrongPasscode: true)
        #expect(again.warning == "Wrong passcode. Tries left: 3")
        #expect(again.handle(.cancel).outcome == nil, "cancel is off by default")
        #expect(again.handle(.useBiometrics).outcome == nil, "biometrics are not enabled")
        #expect(again.handle(.reset).outcome == .reset)

        let last = PasscodeInputScreen(triesLeft: 1, afterWrongPasscode: true)
        #expect(last.warning?.contains(last.strings.lastTry) == true)

        let changed = PasscodeInputScreen(triesLeft: 10, biometricsChanged: true, biometricName: "Face ID")
        #expect(changed.warning == "Unlocking with Face ID is off: the biometrics enrolled on this device changed.")

        var withBiometrics = PasscodeInputScreen(biometricsEnabled: true, allowsReset: false, allowsCancel: true)
        #expect(withBiometrics.handle(.reset).outcome == nil)
        #expect(withBiometrics.handle(.useBiometrics).outcome == .biometrics)
        #expect(withBiometrics.handle(.cancel).outcome == .cancelled)
    }

    @Test func passcodeChangeAsksCurrentThenNewThenConfirm() {
        var screen = PasscodeChangeScreen(policy: Self.policy)
        #expect(screen.phase == .current)
        _ = screen.handle(.enter("582016"))
        #expect(screen.phase == .enter)
        _ = screen.handle(.enter("582016"))
        #expect(screen.notice == screen.strings.sameAsCurrent, "the new passcode must differ")
        _ = screen.handle(.enter("12"))
        #expect(screen.notice == screen.strings.rejected)
        _ = screen.handle(.enter("271828"))
        #expect(screen.phase == .confirm)
        _ = screen.handle(.enter("000000"))
        #expect(screen.notice == screen.strings.mismatch)
        #expect(screen.phase == .enter)
        _ = screen.handle(.enter("271828"))
        #expect(screen.handle(.enter("271828")).outcome == .changed(current: "582016", new: "271828"))
    }

    static let question = CancelConfirmation(
        title: "Stop?",
        message: "Nothing changes.",
        confirm: "Stop",
        resume: "Go On"
    )

    @Test func cancellingTheChangeAsksFirstAndGoingBackKeepsWhatWasTyped() {
        var screen = PasscodeChangeScreen(policy: Self.policy, cancelConfirmation: Self.question)
        _ = screen.handle(.enter("582016"))
        #expect(screen.handle(.confirmCancel(true)).outcome == nil, "nothing to confirm before cancel")
        #expect(screen.handle(.cancel).outcome == nil)
        #expect(screen.isConfirmingCancel)
        #expect(screen.handle(.confirmCancel(false)).outcome == nil)
        #expect(!screen.isConfirmingCancel && screen.phase == .enter, "back where the person was")
        _ = screen.handle(.cancel)
        #expect(screen.handle(.confirmCancel(true)).outcome == .cancelled)

        var forced = PasscodeChangeScreen(policy: Self.policy, allowsCancel: false, cancelConfirmation: Self.question)
        #expect(forced.handle(.cancel).outcome == nil)
        #expect(!forced.isConfirmingCancel, "a forced change has nothing to cancel")
    }

    @Test func cancellingTheUnlockAsksFirst() {
        var screen = PasscodeInputScreen(allowsCancel: true, cancelConfirmation: Self.question)
        #expect(screen.handle(.cancel).outcome == nil)
        #expect(screen.isConfirmingCancel)
        #expect(screen.handle(.enter("271828")).outcome == .passcode("271828"), "typing a passcode answers no")
        #expect(!screen.isConfirmingCancel)
        _ = screen.handle(.cancel)
        #expect(screen.handle(.confirmCancel(true)).outcome == .cancelled)
    }

    @Test func theAppsOwnCheckRefusesANewPasscodeWithItsMessage() {
        var screen = PasscodeChangeScreen(policy: Self.policy) { $0.value.hasPrefix("2") ? "Not a 2." : nil }
        _ = screen.handle(.enter("582016"))
        _ = screen.handle(.enter("271828"))
        #expect(screen.notice == "Not a 2.")
        #expect(screen.phase == .enter)
        _ = screen.handle(.enter("371828"))
        #expect(screen.phase == .confirm)
    }

    @Test func aForcedChangeCannotBeCancelled() {
        var forced = PasscodeChangeScreen(policy: Self.policy, allowsCancel: false, reason: "The policy changed.")
        #expect(forced.handle(.cancel).outcome == nil)
        var optional = PasscodeChangeScreen(policy: Self.policy)
        #expect(optional.handle(.cancel).outcome == .cancelled)
        let retry = PasscodeChangeScreen(policy: Self.policy, afterWrongCurrent: true)
        #expect(retry.notice == retry.strings.wrongCurrent)
    }

    @Test("a wrong current passcode says the tries left, and the last try warns that the next erases the data")
    func changeSaysTriesLeft() {
        let retry = PasscodeChangeScreen(policy: Self.policy, afterWrongCurrent: true, triesLeft: 7)
        #expect(retry.notice == "The current passcode was wrong. Tries left: 7")
        let last = PasscodeChangeScreen(policy: Self.policy, afterWrongCurrent: true, triesLeft: 1)
        #expect(
            last.notice
                == "The current passcode was wrong. One try left. Another wrong passcode erases this user's data."
        )
        // Opened with one try left (wrong passcodes at the lock screen): warned before the first.
        let opened = PasscodeChangeScreen(policy: Self.policy, triesLeft: 1)
        #expect(opened.notice == "One try left. Another wrong passcode erases this user's data.")
        #expect(PasscodeChangeScreen(policy: Self.policy, triesLeft: 9).notice == nil)
    }

    @Test func noPasscodeShowsInAnyDescription() {
        var create = PasscodeCreateScreen(policy: Self.policy, biometricsAvailable: true)
        _ = create.handle(.enter("582016"))
        _ = create.handle(.edit("582016"))
        var change = PasscodeChangeScreen(policy: Self.policy)
        _ = change.handle(.enter("582016"))
        _ = change.handle(.edit("735194"))
        let outcome = PasscodeInputScreen.Outcome.passcode("582016")
        var signIn = SignInScreen()
        _ = signIn.handle(.password("582016"))
        let inputs: [any Sendable] = [
            PasscodeCreateScreen.Input.enter("582016"), PasscodeChangeScreen.Input.edit("582016"),
            PasscodeInputScreen.Input.enter("582016"), SignInScreen.Input.signIn(username: "a", password: "582016"),
        ]
        for text in [
            String(describing: create), String(reflecting: create), String(describing: change),
            String(reflecting: change), String(describing: outcome), String(describing: signIn),
        ] + inputs.map({ String(reflecting: $0) }) {
            #expect(!text.contains("582016"))
            #expect(!text.contains("735194"))
        }
    }
}
