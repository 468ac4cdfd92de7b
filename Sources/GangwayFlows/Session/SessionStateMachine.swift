/// The session's lifecycle as a value: each event is a `mutating func` that moves the
/// state and says what to do; it does no I/O, so every transition is tested directly.
///
/// ```
/// idle → opening → open ⇄ locked → unlocking → open
///                    ↘       ↘          ↘
///                     closed (from open, locked or unlocking; opening again from there)
/// ```
///
/// Times are readings of a monotonic clock, as durations since an arbitrary origin, so a
/// wall-clock change cannot shorten the lock timeout.
public struct SessionStateMachine: Sendable, Hashable {
    /// Where the session is.
    public enum State: Sendable, Hashable {
        /// Nothing opened yet.
        case idle
        /// An onboard or restore flow is running.
        case opening
        /// The user's data is open.
        case open(Session)
        /// The app is in the background since the given time; screens are hidden.
        case locked(Session, since: Duration)
        /// Back in the foreground past the lock timeout: waiting for the passcode.
        case unlocking(Session)
        /// The session was closed; the user's data is locked away.
        case closed

        /// A short name for logs and errors.
        public var name: String {
            switch self {
            case .idle: "idle"
            case .opening: "opening"
            case .open: "open"
            case .locked: "locked"
            case .unlocking: "unlocking"
            case .closed: "closed"
            }
        }

        /// The session, in the states that have one.
        public var session: Session? {
            switch self {
            case .open(let session), .locked(let session, _), .unlocking(let session): session
            case .idle, .opening, .closed: nil
            }
        }
    }

    /// What to do when the app goes to the background.
    public enum BackgroundAction: Sendable, Hashable {
        /// Hide every screen at once.
        case hideScreens
        /// Nothing is showing that needs hiding.
        case none
    }

    /// What to do when the app comes back.
    public enum ForegroundAction: Sendable, Hashable {
        /// Show the app as it was: back within the lock timeout.
        case resume
        /// Ask for the passcode (or biometrics) before showing anything.
        case unlock
        /// Nothing to do: no session was locked.
        case none
    }

    /// The current state.
    public private(set) var state = State.idle

    public init() {}

    /// An onboard or restore flow starts.
    public mutating func startOpening() throws(SessionError) {
        switch state {
        case .idle, .closed: state = .opening
        case .opening, .open, .locked, .unlocking: throw .wrongState("open", in: state)
        }
    }

    /// The flow finished: the session is open.
    public mutating func opened(_ session: Session) throws(SessionError) {
        guard case .opening = state else { throw .wrongState("opened", in: state) }
        state = .open(session)
    }

    /// The flow failed or was stopped: nothing is open.
    public mutating func openingFailed() throws(SessionError) {
        guard case .opening = state else { throw .wrongState("openingFailed", in: state) }
        state = .idle
    }

    /// The app went to the background at `now`.
    public mutating func enterBackground(at now: Duration) -> BackgroundAction {
        switch state {
        case .open(let session):
            state = .locked(session, since: now)
            return .hideScreens
        case .opening, .unlocking:
            // Onboarding or unlock screens may show typed text: hide them too.
            return .hideScreens
        case .locked, .idle, .closed:
            return .none
        }
    }

    /// The app came back at `now`. The passcode is asked when the app was away for the
    /// lock timeout or longer (a timeout of zero asks at every return); a store without a
    /// passcode (`hasPasscode` false) never asks. A session still waiting for its unlock
    /// (the last attempt failed or was interrupted) asks again.
    public mutating func enterForeground(
        at now: Duration,
        lockTimeout: Duration,
        hasPasscode: Bool = true
    ) -> ForegroundAction {
        if case .unlocking = state {
            // An unlock that failed or was interrupted: still locked, ask again.
            return .unlock
        }
        guard case .locked(let session, let since) = state else { return .none }
        if hasPasscode && now - since >= lockTimeout {
            state = .unlocking(session)
            return .unlock
        }
        state = .open(session)
        return .resume
    }

    /// The user unlocked.
    public mutating func unlocked() throws(SessionError) {
        guard case .unlocking(let session) = state else { throw .wrongState("unlocked", in: state) }
        state = .open(session)
    }

    /// Closes the session and returns it, so its resources can be released.
    public mutating func close() throws(SessionError) -> Session {
        guard let session = state.session else { throw .wrongState("close", in: state) }
        state = .closed
        return session
    }
}
