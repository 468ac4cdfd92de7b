import GangwayPolicy
import GangwayScreens

extension TerminalPresenter {
    func run(_ screen: WelcomeScreen) async throws -> WelcomeScreen.Outcome {
        try await drive(screen) { screen in
            let strings = screen.strings
            console.heading(strings.title)
            console.line(screen.configuration == .configured ? strings.configuredDetail : strings.detail)
            console.notice(screen.notice)
            if screen.requiresTerms, !screen.termsAccepted {
                for link in screen.termsLinks {
                    console.line("  " + localized("welcome.termsLink", link.title, link.version, link.url))
                }
                let accepted = try await console.confirm(strings.acceptTerms + "?")
                return .acceptTerms(accepted)
            }
            enum Choice: Sendable { case method(WelcomeScreen.ActivationMethod), signIn, demo }
            var options: [ChoiceOption<Choice>] = []
            if screen.configuration == .configured {
                options.append(.init(strings.signIn, words: ["sign in"], .signIn))
            }
            for method in screen.activationMethods {
                switch method {
                case .email: options.append(.init(strings.email, words: ["email"], .method(.email)))
                case .link: options.append(.init(strings.link, words: ["link"], .method(.link)))
                case .qrCode: options.append(.init(strings.qrCode, words: ["qr"], .method(.qrCode)))
                }
            }
            if screen.offersDemoMode { options.append(.init(strings.demoMode, words: ["demo"], .demo)) }
            switch try await console.choose(options) {
            case .signIn: return .signIn
            case .demo: return .demoMode
            case .method(.email): return .activate(.email(try await console.ask(localized("welcome.workEmail") + ": ")))
            case .method(.link):
                return .activate(.link(try await console.ask(localized("welcome.activationLink") + ": ")))
            case .method(.qrCode):
                return .activate(.qrCode(try await console.ask(localized("welcome.qrCode") + ": ")))
            }
        }
    }

    func run(_ screen: SignInScreen) async throws -> SignInScreen.Outcome {
        try await drive(screen) { screen in
            console.heading(screen.strings.title)
            if let message = screen.message { console.line(console.styled(message, .yellow)) }
            if let throttle = screen.throttleNotice { console.line(console.styled(throttle, .yellow)) }
            console.notice(screen.notice)
            var prompt = screen.strings.username
            if !screen.username.isEmpty {
                prompt += " [\(screen.username)]"
            } else if screen.allowsCancel {
                prompt += " " + localized("hint.emptyToCancel")
            }
            var username = try await console.ask(prompt + ": ")
            if username.isEmpty {
                guard !screen.username.isEmpty else { return screen.allowsCancel ? .cancel : .submit }
                username = screen.username
            }
            // Where an empty user name keeps the one shown, an empty password cancels.
            let cancelsHere = screen.allowsCancel && !screen.username.isEmpty
            let passwordPrompt = screen.strings.password + (cancelsHere ? " " + localized("hint.emptyToCancel") : "")
            let password = try await console.askSecret(passwordPrompt + ": ")
            if password.isEmpty, cancelsHere { return .cancel }
            return .signIn(username: username, password: password)
        }
    }

    func run(_ screen: FeedbackScreen) async throws -> FeedbackScreen.Outcome {
        try await drive(screen) { screen in
            console.heading(screen.texts.title)
            if !screen.texts.headline.isEmpty { console.line(console.styled(screen.texts.headline, .bold)) }
            if !screen.texts.detail.isEmpty { console.line(screen.texts.detail) }
            if let secondary = screen.texts.secondaryButton {
                return try await console.choose([
                    ChoiceOption(screen.texts.button, words: ["y", "yes"], FeedbackScreen.Input.continue),
                    ChoiceOption(secondary, words: ["n", "no"], .secondary),
                ])
            }
            _ = try await console.ask(localized("feedback.pressEnter", screen.texts.button.lowercased()) + " ")
            return .continue
        }
    }

    func run(_ screen: UserPickerScreen) async throws -> UserPickerScreen.Outcome {
        try await drive(screen) { screen in
            console.heading(screen.strings.title)
            console.notice(screen.notice)
            var options = screen.users.map { user in
                let label =
                    user.id == screen.current ? "\(user.displayName) (\(screen.strings.current))" : user.displayName
                return ChoiceOption(label, words: [user.displayName], UserPickerScreen.Input.select(user.id))
            }
            if screen.allowsAddUser {
                options.append(.init(screen.strings.addUser, words: ["add", "add user"], .addUser))
            }
            return try await console.choose(options)
        }
    }

    func run(_ screen: ExistingUserScreen) async throws -> ExistingUserScreen.Outcome {
        try await drive(screen) { screen in
            console.heading(screen.title)
            console.line(screen.message)
            var options: [ChoiceOption<ExistingUserScreen.Input>] = []
            if let unlock = screen.unlockLabel { options.append(.init(unlock, words: ["unlock"], .unlockExisting)) }
            if screen.allowsAddUser {
                options.append(.init(screen.strings.addUser, words: ["add", "add user"], .addUser))
            }
            options.append(.init(screen.backLabel, words: ["back", "cancel"], .back))
            return try await console.choose(options)
        }
    }

    func run(_ screen: ConsentScreen) async throws -> ConsentScreen.Outcome {
        try await drive(screen) { screen in
            let page = screen.pages.indices.contains(screen.pageIndex) ? screen.pages[screen.pageIndex] : nil
            console.heading(page?.title ?? screen.topic)
            if let page { console.line(page.body) }
            if screen.pages.count > 1 {
                console.line(console.styled(localized("consent.page", screen.pageIndex + 1, screen.pages.count), .dim))
            }
            if screen.isRequired { console.line(console.styled(screen.strings.requiredNotice, .dim)) }
            let strings = screen.strings
            var options: [ChoiceOption<ConsentScreen.Input>] = []
            if screen.isOnLastPage {
                options.append(.init(strings.accept, words: ["allow", "accept"], .accept))
            } else {
                options.append(.init(strings.next, words: ["next"], .next))
            }
            if screen.pageIndex > 0 { options.append(.init(strings.back, words: ["back"], .back)) }
            options.append(.init(strings.decline, words: ["decline"], .decline))
            return try await console.choose(options)
        }
    }

    func run(_ screen: EULAScreen) async throws -> EULAScreen.Outcome {
        try await drive(screen) { screen in
            console.heading(localized("eula.heading", screen.strings.title, screen.version))
            console.line(screen.text)
            return try await console.choose([
                .init(screen.strings.accept, words: ["accept"], .accept),
                .init(screen.strings.decline, words: ["decline"], .decline),
            ])
        }
    }

    func run(_ screen: PermissionScreen) async throws -> PermissionScreen.Outcome {
        try await drive(screen) { screen in
            console.heading(screen.title)
            console.line(screen.body)
            console.line(console.styled(screen.strings.optionalNotice, .dim))
            if screen.count > 1 {
                console.line(console.styled(localized("consent.page", screen.position, screen.count), .dim))
            }
            return try await console.choose([
                .init(screen.strings.allow, words: ["allow"], .allow),
                .init(screen.strings.notNow, words: ["not now", "skip"], .notNow),
            ])
        }
    }

    func run(_ screen: ErrorScreen) async throws -> ErrorScreen.Outcome {
        try await drive(screen) { screen in
            console.heading(screen.strings.title)
            console.line(console.styled(screen.message, .red))
            if let advice = screen.advice { console.line(advice) }
            var options: [ChoiceOption<ErrorScreen.Input>] = []
            if screen.allowsRetry { options.append(.init(screen.strings.retry, words: ["retry"], .retry)) }
            options.append(.init(screen.strings.cancel, words: ["cancel"], .cancel))
            return try await console.choose(options)
        }
    }
}
