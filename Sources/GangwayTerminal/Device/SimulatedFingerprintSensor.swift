import Foundation
import GangwayStore

/// The terminal's fingerprint sensor: a simulation, since a terminal has none.
///
/// Enrolled with `--biometrics`, it accepts every touch and says on the console that the
/// touch was simulated. Its enrollment token never changes, so a biometric key made by an
/// earlier run of the app stays valid.
struct SimulatedFingerprintSensor: Biometrics {
    /// Whether a finger is enrolled.
    let isEnrolled: Bool
    /// Where the sensor says what it did.
    let announce: @Sendable (String) -> Void

    var availability: BiometricAvailability {
        isEnrolled ? .available(.fingerprint) : .notEnrolled
    }

    var enrollmentToken: Data? {
        guard isEnrolled else { return nil }
        return Data("simulated-fingerprint-".utf8) + withUnsafeBytes(of: UInt64(1).bigEndian) { Data($0) }
    }

    func authenticate(reason: String) async throws {
        guard isEnrolled else { throw SecureStoreError.biometricsUnavailable }
        announce("\(reason): fingerprint accepted (simulated sensor).")
    }
}
