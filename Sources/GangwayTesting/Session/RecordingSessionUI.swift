import GangwayFlows
import Synchronization

/// A ``GangwayFlows/SessionUIManaging`` that records what it was told, for tests.
public final class RecordingSessionUI: SessionUIManaging {
    /// One call.
    public enum Event: Sendable, Hashable {
        case splash
        case hide
        case show(Session)
    }

    private let recorded = Mutex<[Event]>([])

    public init() {}

    public func showSplashScreen() async { recorded.withLock { $0.append(.splash) } }
    public func hideApplicationScreens() async { recorded.withLock { $0.append(.hide) } }
    public func showApplicationScreens(for session: Session) async { recorded.withLock { $0.append(.show(session)) } }

    /// The calls so far, in order.
    public var events: [Event] { recorded.withLock { $0 } }

    /// Whether the app's screens are showing now: shown after the last hide.
    public var isShowingApplication: Bool {
        guard case .show = recorded.withLock({ $0.last { $0 != .splash } }) else { return false }
        return true
    }
}
