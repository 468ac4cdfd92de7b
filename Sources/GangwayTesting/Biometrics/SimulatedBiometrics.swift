import Foundation
import GangwayStore
import Synchronization

/// A biometric sensor in software, for tests and demos.
///
/// It can be enrolled, re-enrolled (which changes its enrollment token and so
/// invalidates every biometric key made before), told how the next check goes, and
/// asked how many checks it ran.
public final class SimulatedBiometrics: Biometrics {
    /// How the next authentication ends.
    public enum Outcome: Sendable {
        case success
        case failure
        case cancel
    }

    private struct State {
        var kind: BiometricKind
        var enrollment: UInt64?
        var outcome: Outcome = .success
        var authentications = 0
    }

    private let state: Mutex<State>

    /// A sensor of `kind`, enrolled unless `enrolled` is false.
    public init(kind: BiometricKind = .fingerprint, enrolled: Bool = true) {
        state = Mutex(State(kind: kind, enrollment: enrolled ? 1 : nil))
    }

    public var availability: BiometricAvailability {
        state.withLock { $0.enrollment == nil ? .notEnrolled : .available($0.kind) }
    }

    public var enrollmentToken: Data? {
        state.withLock { state in
            state.enrollment.map {
                withUnsafeBytes(of: $0.bigEndian) { Data("simulated-\(state.kind)-".utf8) + Data($0) }
            }
        }
    }

    public func authenticate(reason: String) async throws {
        let outcome = state.withLock { state -> Outcome? in
            guard state.enrollment != nil else { return nil }
            state.authentications += 1
            return state.outcome
        }
        switch outcome {
        case nil: throw SimulatedBiometricsError.notEnrolled
        case .success: return
        case .failure: throw SimulatedBiometricsError.noMatch
        case .cancel: throw SimulatedBiometricsError.cancelled
        }
    }

    /// Sets how every following authentication ends.
    public func setOutcome(_ outcome: Outcome) { state.withLock { $0.outcome = outcome } }

    /// Enrolls a new biometric: the enrollment token changes.
    public func changeEnrollment() {
        state.withLock { $0.enrollment = ($0.enrollment ?? 0) + 1 }
    }

    /// Removes every enrolled biometric.
    public func unenroll() { state.withLock { $0.enrollment = nil } }

    /// How many authentications were attempted while enrolled.
    public var authenticationCount: Int { state.withLock { $0.authentications } }
}

/// Why a simulated biometric check failed.
public enum SimulatedBiometricsError: Error, Sendable {
    case notEnrolled
    case noMatch
    case cancelled
}
