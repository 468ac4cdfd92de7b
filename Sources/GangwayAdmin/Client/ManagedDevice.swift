import GangwayProtocol

/// A device registration as the server's admin API shows it (one device and user of an
/// app): the API's own type. Its `status` says what the server does with the
/// registration's calls: `active` serves them, `locked` refuses each with
/// `TRAFFIC_REG_LOCKED` until the user signs in again, `wiped` with `TRAFFIC_REG_WIPED`
/// (the app then erases the user's data). For a wiped registration, `wipeCarriedOut`
/// says whether the device has heard of the wipe.
public typealias ManagedDevice = Components.Schemas.Device

extension Components.Schemas.Device {
    /// What the server does with a registration's calls.
    public typealias Status = Components.Schemas.DeviceStatus

    /// The server user the registration belongs to.
    public var username: String { userID }
}
