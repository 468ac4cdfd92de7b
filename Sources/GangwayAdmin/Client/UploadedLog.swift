import Foundation
import GangwayClient
import GangwayProtocol

/// A log entry a device uploaded, as an administrator reads it.
public struct UploadedLog: Sendable, Hashable, Codable {
    /// When the device logged it.
    public var time: Date
    /// Its level's name (`info`, `notice`, …).
    public var level: String
    public var message: String
    /// Where it came from on the device, such as the logger's label.
    public var source: String?
    /// The user whose session uploaded it.
    public var userID: String
    /// The device that sent it.
    public var deviceID: String
    /// When the server received it.
    public var receivedAt: Date

    init(_ wire: Components.Schemas.StoredLogEntry) {
        time = wire.time
        level = wire.level
        message = wire.message
        source = wire.source
        userID = wire.userID
        deviceID = wire.deviceID
        receivedAt = wire.receivedAt
    }
}
