import Foundation
import GangwayClient
import GangwayProtocol

/// A device registration as the server's admin API shows it: one device and user of an
/// app. ``AdminClient`` makes them from the server's answers.
public struct ManagedDevice: Sendable, Hashable {
    /// What the server does with the registration's calls.
    public enum Status: String, Sendable, Hashable, CaseIterable {
        /// Served as usual.
        case active
        /// Every call is refused with `TRAFFIC_REG_LOCKED` until the user signs in again.
        case locked
        /// Every call is refused with `TRAFFIC_REG_WIPED`; the app erases the user's data.
        case wiped
    }

    public var registrationID: String
    public var deviceID: String
    /// The server user the registration belongs to.
    public var username: String
    public var deviceName: String
    public var platform: String
    public var appVersion: String
    public var status: Status
    public var registeredAt: Date
    public var lastContactAt: Date?
    /// For a wiped registration: whether the device has heard of the wipe, and so erased
    /// its user's data; `nil` for another status.
    public var wipeCarriedOut: Bool?

    /// The registration the admin API answered with.
    init(_ device: Components.Schemas.Device) {
        registrationID = device.registrationID
        deviceID = device.deviceID
        username = device.userID
        deviceName = device.deviceName
        platform = device.platform
        appVersion = device.appVersion
        // The schema's statuses are these three; the generated enum holds no other.
        status = Status(rawValue: device.status.rawValue) ?? .locked
        registeredAt = device.registeredAt
        lastContactAt = device.lastContactAt
        wipeCarriedOut = device.wipeCarriedOut
    }
}
