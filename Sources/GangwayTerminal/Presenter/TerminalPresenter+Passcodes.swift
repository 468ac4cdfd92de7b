import GangwayPolicy
import GangwayScreens
import GangwayStore

extension TerminalPresenter {
    func run(_ screen: PasscodeCreateScreen) async throws -> PasscodeCreateScreen.Outcome {
        try await drive(screen) { screen in
            let strings = screen.strings
            switch screen.phase {
            case .enter:
                console.heading(strings.title)
                if let reason = screen.reason { console.line(reason) }
                console.notice(screen.notice)
                let entry = screen.entry
                let hint = screen.allowsSkip ? " " + localized("hint.emptyToSkip") : ""
                let passcode = try await console.askSecret("\(strings.enterPrompt)\(hint): ") { typed in
                    checklist(typed.isEmpty ? entry.checklist : entry.policy.evaluate(typed))
                }
                return passcode.isEmpty && screen.allowsSkip ? .skip : .enter(passcode)
            case .confirm:
                console.notice(screen.notice)
                let passcode = try await console.askSecret(
                    "\(strings.confirmPrompt) \(localized("hint.emptyToStartOver")): "
                )
                return passcode.isEmpty ? .back : .enter(passcode)
            case .biometricOptIn:
                console.heading(screen.biometricTitle)
                console.line(screen.biometricDetail)
                return .biometrics(try await console.confirm(strings.enableBiometrics + "?"))
            }
        }
    }

    func run(_ screen: PasscodeInputScreen) async throws -> PasscodeInputScreen.Outcome {
        try await drive(screen) { screen in
            if screen.isConfirmingCancel, let question = screen.cancelConfirmation {
                return .confirmCancel(try await confirmCancel(question))
            }
            let strings = screen.strings
            console.heading(strings.title)
            if let warning = screen.warning { console.line(console.styled(warning, .yellow)) }
            console.notice(screen.notice)
            let passcode = try await console.askSecret("\(strings.prompt) \(localized("hint.emptyForMoreChoices")): ")
            guard passcode.isEmpty else { return .enter(passcode) }
            var options: [ChoiceOption<PasscodeInputScreen.Input?>] = [
                .init(localized("passcodeInput.enterPasscode"), words: ["passcode"], nil)
            ]
            if screen.biometricsEnabled {
                options.append(.init(screen.useBiometricsLabel, words: ["biometrics"], .useBiometrics))
            }
            if screen.allowsReset { options.append(.init(strings.reset, words: ["reset"], .reset)) }
            if screen.offersUserSwitch {
                options.append(.init(strings.switchUser, words: ["switch", "switch user"], .switchUser))
                options.append(.init(strings.addUser, words: ["add", "add user"], .addUser))
            }
            if screen.allowsCancel { options.append(.init(strings.cancel, words: ["cancel"], .cancel)) }
            return try await console.choose(options) ?? .enter("")
        }
    }

    func run(_ screen: PasscodeChangeScreen) async throws -> PasscodeChangeScreen.Outcome {
        try await drive(screen) { screen in
            if screen.isConfirmingCancel, let question = screen.cancelConfirmation {
                return .confirmCancel(try await confirmCancel(question))
            }
            let strings = screen.strings
            let cancelHint = screen.allowsCancel ? " " + localized("hint.emptyToCancel") : ""
            switch screen.phase {
            case .current:
                console.heading(strings.title)
                if let reason = screen.reason { console.line(reason) }
                console.notice(screen.notice)
                let current = try await console.askSecret("\(strings.currentPrompt)\(cancelHint): ")
                return current.isEmpty && screen.allowsCancel ? .cancel : .enter(current)
            case .enter:
                console.notice(screen.notice)
                let entry = screen.entry
                let passcode = try await console.askSecret("\(strings.enterPrompt)\(cancelHint): ") { typed in
                    checklist(typed.isEmpty ? entry.checklist : entry.policy.evaluate(typed))
                }
                return passcode.isEmpty && screen.allowsCancel ? .cancel : .enter(passcode)
            case .confirm:
                console.notice(screen.notice)
                return .enter(try await console.askSecret("\(strings.confirmPrompt): "))
            }
        }
    }

    /// Asks whether to cancel; `true` cancels.
    private func confirmCancel(_ question: CancelConfirmation) async throws -> Bool {
        console.heading(question.title)
        console.line(question.message)
        return try await console.choose([
            ChoiceOption(question.confirm, words: ["y", "yes", "cancel"], true),
            ChoiceOption(question.resume, words: ["n", "no", "back"], false),
        ])
    }
}
