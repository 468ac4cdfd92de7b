import Foundation
import GangwayPolicy

/// What a store says about itself before it is unlocked: its ID, format, policy and
/// protection. Authenticated with the device key's record key.
struct StoreHeader: Sendable, Hashable, Codable {
    enum Protection: String, Sendable, Hashable, Codable {
        /// The data key is wrapped by the passcode (and maybe a biometric key).
        case passcode
        /// No-passcode mode: the data key is wrapped by the device key.
        case device
    }

    var formatVersion: Int
    var storeID: UUID
    var createdAt: Date
    var protection: Protection
    var policy: PasscodePolicy?
    var biometricsEnabled: Bool
    var passcodeSetAt: Date?

    /// The slots that must exist for this header; a missing one means the slots were
    /// destroyed, either by an erase that did not finish or by tampering.
    var expectedSlots: Set<KeySlot.Kind> {
        var slots: Set<KeySlot.Kind> = protection == .passcode ? [.passcode] : [.device]
        if biometricsEnabled { slots.insert(.biometric) }
        return slots
    }
}
