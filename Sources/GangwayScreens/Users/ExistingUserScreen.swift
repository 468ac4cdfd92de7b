import Foundation

/// The person who signed in is not who the flow expected, on a device that knows them:
/// instead of an error, what they can do.
///
/// - While adding a user, they turn out to have a user here already: unlock it with their
///   own passcode, or go back.
/// - While resetting someone's passcode, someone else signed in: unlock their own user
///   (when they have one here), add themselves as a new user (on a shared device), or go
///   back to the user whose passcode it is. Only that user can reset it.
public struct ExistingUserScreen: ScreenModel {
    /// Why the screen shows.
    public enum Situation: Sendable, Hashable {
        /// Adding a user: the person who signed in is the registered user named `existing`.
        case alreadyOnboarded(existing: String)
        /// Resetting `resetting`'s passcode, another person signed in: `signedIn` is their
        /// user's name on this device, `nil` when they have none.
        case otherPerson(resetting: String, signedIn: String?)
    }

    /// What the person can do.
    public enum Input: Sendable, Hashable {
        /// Unlock the user the person who signed in already has.
        case unlockExisting
        /// Add the person as a new user (a shared device, no user of theirs yet).
        case addUser
        /// Go back: to the user picker, or to the user whose passcode it is.
        case back
    }

    public typealias Outcome = Input

    /// Texts shown on the screen; `%@` stands for a user's name.
    public struct Strings: Sendable, Hashable {
        public var alreadyOnboardedTitle = StringTable.text("existingUser.alreadyOnboardedTitle")
        public var alreadyOnboardedMessage = StringTable.text("existingUser.alreadyOnboardedMessage")
        public var otherPersonTitle = StringTable.text("existingUser.otherPersonTitle")
        /// The person who signed in has a user here: first their name, then the other's.
        public var otherPersonMessage = StringTable.text("existingUser.otherPersonMessage")
        public var unknownPersonMessage = StringTable.text("existingUser.unknownPersonMessage")
        public var unlockExisting = StringTable.text("existingUser.unlockExisting")
        public var addUser = StringTable.text("existingUser.addUser")
        public var backToPicker = StringTable.text("existingUser.backToPicker")
        public var backToUser = StringTable.text("existingUser.backToUser")
        public init() {}
    }

    public var kind: ScreenKind { .existingUser }
    /// Texts, replaceable by the app.
    public var strings: Strings
    public let situation: Situation
    /// Whether "add user" shows: resetting on a shared device, by a person with no user here.
    public let allowsAddUser: Bool

    public init(situation: Situation, allowsAddUser: Bool = false, strings: Strings = Strings()) {
        self.situation = situation
        if case .otherPerson(_, nil) = situation {
            self.allowsAddUser = allowsAddUser
        } else {
            self.allowsAddUser = false
        }
        self.strings = strings
    }

    public var title: String {
        switch situation {
        case .alreadyOnboarded: strings.alreadyOnboardedTitle
        case .otherPerson: strings.otherPersonTitle
        }
    }

    public var message: String {
        switch situation {
        case .alreadyOnboarded(let existing):
            StringTable.format(strings.alreadyOnboardedMessage, [existing])
        case .otherPerson(let resetting, let signedIn?):
            StringTable.format(strings.otherPersonMessage, [signedIn, resetting])
        case .otherPerson(let resetting, nil):
            StringTable.format(strings.unknownPersonMessage, [resetting, resetting])
        }
    }

    /// The label of "unlock", naming whose user it opens; `nil` when there is none to open.
    public var unlockLabel: String? {
        switch situation {
        case .alreadyOnboarded(let existing): StringTable.format(strings.unlockExisting, [existing])
        case .otherPerson(_, let signedIn?): StringTable.format(strings.unlockExisting, [signedIn])
        case .otherPerson(_, nil): nil
        }
    }

    public var backLabel: String {
        switch situation {
        case .alreadyOnboarded: strings.backToPicker
        case .otherPerson(let resetting, _): StringTable.format(strings.backToUser, [resetting])
        }
    }

    public mutating func handle(_ input: Input) -> ScreenStep<Outcome> {
        switch input {
        case .unlockExisting: unlockLabel == nil ? .stay : .finish(.unlockExisting)
        case .addUser: allowsAddUser ? .finish(.addUser) : .stay
        case .back: .finish(.back)
        }
    }
}
