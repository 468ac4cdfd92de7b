import Foundation

/// The kind of biometric a device offers: Apple's named sensors, or a generic one of
/// another platform. The texts a person reads name it (see GangwayFlows'
/// `StoreManager.Strings.biometricNames`).
public enum BiometricKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Touch ID.
    case touchID
    /// Face ID.
    case faceID
    /// Optic ID.
    case opticID
    /// A fingerprint sensor of another platform.
    case fingerprint
    /// Face recognition of another platform.
    case face
    /// Iris recognition of another platform.
    case iris
}

/// Whether biometric authentication can be used now.
public enum BiometricAvailability: Sendable, Hashable {
    /// Available and enrolled.
    case available(BiometricKind)
    /// The hardware exists but no biometric is enrolled.
    case notEnrolled
    /// No biometric hardware, or it is turned off.
    case unavailable
}

/// The device's biometric authentication: the role Face ID and Touch ID play on Apple
/// platforms.
///
/// Biometrics only ever unwraps a key: a store with biometric unlock keeps a random
/// biometric key in the ``DeviceKeyStore``, bound to the enrollment token that was
/// current when it was made. When the enrollment changes (a finger or face added), the
/// token changes, the key is destroyed, and the user must use the passcode.
public protocol Biometrics: Sendable {
    /// Whether a biometric can be used now.
    var availability: BiometricAvailability { get }
    /// An opaque value that changes whenever the set of enrolled biometrics changes;
    /// `nil` when none is enrolled.
    var enrollmentToken: Data? { get }
    /// Asks the user to authenticate; throws if they fail or cancel.
    func authenticate(reason: String) async throws
}

/// No biometric: the default on Linux and wherever the platform offers none.
public struct NoBiometrics: Biometrics {
    /// Creates the value.
    public init() {}
    public var availability: BiometricAvailability { .unavailable }
    public var enrollmentToken: Data? { nil }
    public func authenticate(reason: String) async throws {
        throw SecureStoreError.biometricsUnavailable
    }
}
