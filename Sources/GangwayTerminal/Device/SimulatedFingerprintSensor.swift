import Foundation
import GangwayStore
import GangwaySystem

/// The terminal's fingerprint sensor: a simulation, since a terminal has none.
///
/// Enrolled with `--biometrics`, it accepts every touch and says on the console that the
/// touch was simulated. Its enrollment token stays the same from one run of the app to
/// the next, so a biometric key made by an earlier run stays valid, until
/// `biometrics enroll` plays someone enrolling another finger in the device's settings:
/// the count of enrollments, kept in a file of the device directory, changes the token,
/// and every biometric key made before no longer opens.
struct SimulatedFingerprintSensor: Biometrics {
    /// Whether a finger is enrolled.
    let isEnrolled: Bool
    /// Where the count of enrollments is kept.
    let enrollmentFile: URL
    /// Where the sensor says what it did.
    let announce: @Sendable (String) -> Void

    var availability: BiometricAvailability {
        isEnrolled ? .available(.fingerprint) : .notEnrolled
    }

    var enrollmentToken: Data? {
        guard isEnrolled else { return nil }
        return Data("simulated-fingerprint-".utf8) + withUnsafeBytes(of: enrollments.bigEndian) { Data($0) }
    }

    /// How many times a finger was enrolled: 1 until `biometrics enroll`.
    private var enrollments: UInt64 {
        guard let data = try? Data(contentsOf: enrollmentFile),
            let count = UInt64(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else { return 1 }
        return count
    }

    /// Plays another finger being enrolled in the device's settings.
    func enrollAnotherFinger() throws {
        try PrivateFiles.write(Data("\(enrollments + 1)\n".utf8), to: enrollmentFile)
    }

    func authenticate(reason: String) async throws {
        guard isEnrolled else { throw SecureStoreError.biometricsUnavailable }
        announce(localized("biometrics.accepted", reason))
    }
}
