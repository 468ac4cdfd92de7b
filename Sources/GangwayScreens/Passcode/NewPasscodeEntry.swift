import GangwayPolicy

/// Choosing a new passcode: type it while a checklist of the policy's rules updates,
/// submit it, then type it again to confirm. Shared by passcode create and change.
public struct NewPasscodeEntry: Sendable, Hashable {
    /// Where the entry is.
    public enum Phase: Sendable, Hashable {
        /// Typing the new passcode.
        case enter
        /// Typing it a second time.
        case confirm
    }

    /// Why the last submission was not taken.
    public enum Problem: Sendable, Hashable {
        /// The passcode breaks these rules of the policy.
        case rejected([PasscodeRule])
        /// The confirmation differed from the first entry; enter a new passcode again.
        case mismatch
        /// The app's own validation refused it, with its message.
        case refused(String)
    }

    /// The policy the passcode must meet.
    public let policy: PasscodePolicy
    /// The current phase.
    public private(set) var phase = Phase.enter
    /// What is typed in the field now.
    public private(set) var text: Secret = ""
    /// Each rule of the policy and whether the text typed so far meets it.
    public private(set) var checklist: PasscodeEvaluation
    /// Why the last submission was not taken, until the user types again.
    public private(set) var problem: Problem?
    private var first: Secret?

    public init(policy: PasscodePolicy) {
        self.policy = policy
        checklist = policy.evaluate("")
    }

    /// Replaces the text typed so far and updates the checklist.
    public mutating func edit(_ text: Secret) {
        self.text = text
        if phase == .enter { checklist = policy.evaluate(text) }
        problem = nil
    }

    /// Submits the text. Returns the passcode once it is entered and confirmed.
    /// - Parameter validate: the app's extra check; a message refuses the passcode.
    public mutating func submit(validate: (Secret) -> String? = { _ in nil }) -> Secret? {
        switch phase {
        case .enter:
            let evaluation = policy.evaluate(text)
            checklist = evaluation
            guard evaluation.isAcceptable else {
                problem = .rejected(evaluation.failedRules)
                return nil
            }
            if let message = validate(text) {
                problem = .refused(message)
                return nil
            }
            first = text
            text = ""
            phase = .confirm
            return nil
        case .confirm:
            guard text == first else {
                problem = .mismatch
                restart()
                return nil
            }
            return text
        }
    }

    /// The message for ``problem``, worded by the screen that shows it.
    public func problemText(mismatch: String, rejected: String) -> String? {
        switch problem {
        case .mismatch?: mismatch
        case .rejected?: rejected
        case .refused(let message)?: message
        case nil: nil
        }
    }

    /// Goes back to entering a new passcode, forgetting the first entry.
    public mutating func restart() {
        phase = .enter
        first = nil
        text = ""
        checklist = policy.evaluate("")
    }
}
