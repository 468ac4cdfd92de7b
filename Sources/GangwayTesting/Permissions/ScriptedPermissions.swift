import GangwayFlows
import GangwayScreens
import Synchronization

/// A platform permission API in software, for tests and demos: statuses set up front,
/// the person's answer to each platform question scripted, and every question recorded.
public final class ScriptedPermissions: PlatformPermissions {
    private struct State {
        var statuses: [Permission: PermissionStatus]
        var answers: [Permission: PermissionStatus]
        var asked: [Permission] = []
    }

    private let state: Mutex<State>

    /// A platform where `statuses` are decided already (the rest never asked), whose
    /// questions the person answers with `answers` (``PermissionStatus/granted`` for a
    /// permission not in it).
    public init(
        statuses: [Permission: PermissionStatus] = [:],
        answers: [Permission: PermissionStatus] = [:]
    ) {
        state = Mutex(State(statuses: statuses, answers: answers))
    }

    public func status(of permission: Permission) async -> PermissionStatus {
        state.withLock { $0.statuses[permission] ?? .notDetermined }
    }

    public func request(_ permission: Permission) async throws -> PermissionStatus {
        state.withLock { state in
            state.asked.append(permission)
            let answer = state.answers[permission] ?? .granted
            state.statuses[permission] = answer
            return answer
        }
    }

    /// The platform questions shown so far, in order.
    public var asked: [Permission] { state.withLock { $0.asked } }
}
