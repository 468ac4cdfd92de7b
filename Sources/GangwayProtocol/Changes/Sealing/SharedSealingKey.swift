import Crypto
import Foundation

/// A key a run of changes is sealed under (``ChangeSeal``'s shared form): agreed with one
/// recipient by one HPKE encapsulation, which travels with each change so the recipient
/// derives the key again. Only the recipient and the sealer ever hold the key; a device
/// keeps it in memory only.
struct SharedSealingKey: Sendable {
    /// The key the run is sealed to.
    let recipient: SealingPublicKey
    /// The encapsulated key (65 bytes) that each change of the run carries.
    let encapsulated: Data
    let key: SymmetricKey
}
