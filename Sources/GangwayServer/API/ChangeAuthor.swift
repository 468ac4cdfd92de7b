import GangwayProtocol
import GangwayServerStorage

/// What the server holds of the author behind a registration's changes, read once per
/// upload: their registration (with its key for changes) and whether they are blocked.
struct ChangeAuthor: Sendable {
    var registration: DeviceRecord?
    var blocked: Bool
    /// The author's attributes: which entities of a set with a subset they may change.
    var attributes = UserAttributes()

    /// Why `signed` is refused before it is recorded, or `nil` when it goes on: a change
    /// whose author, registration or signature does not check is never recorded, so no
    /// one can spend another person's change ID. `deviceID` is the device of the session
    /// that carries it.
    func refusal(of signed: SignedChange, deviceID: String) -> ChangeRejection? {
        let change = signed.change
        guard let registration else {
            return ChangeRejection(.keyRevoked, "The change's registration is not on the server.")
        }
        guard registration.deviceID == deviceID, registration.username == change.author else {
            return ChangeRejection(.authorMismatch, "The change's author or registration is not of this device.")
        }
        guard let keyBytes = registration.changeKey, let key = try? ChangeVerifyingKey(x963Representation: keyBytes)
        else {
            return ChangeRejection(.keyRevoked, "The author's registration has no key for changes.")
        }
        guard signed.isSigned(by: key) else {
            return ChangeRejection(.signatureInvalid, "The signature is not the author's for this change.")
        }
        return nil
    }

    /// Why the author's changes wait on the device for now, or `nil`: the author is
    /// blocked, or the registration locked. Neither is for good, so neither refuses.
    var holdReason: ChangeRejection? {
        if blocked {
            return ChangeRejection(.authorHeld, "The author is blocked; the change waits until they are unblocked.")
        }
        if registration?.status == .locked {
            return ChangeRejection(
                .authorHeld,
                "The author's registration is locked; the change waits until it is unlocked."
            )
        }
        return nil
    }
}
