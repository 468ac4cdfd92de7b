import Foundation
import GangwayProtocol

/// An app the server onboards devices into, with the settings it sends them.
public struct AppRecord: Sendable, Hashable {
    public var id: String
    public var name: String
    public var emailDomains: [String]
    public var minimumVersion: String?
    public var settings: Components.Schemas.AppSettings
    /// How the app's people sign in.
    public var authentication: AppAuthentication
    public var createdAt: Date

    public init(
        id: String,
        name: String,
        emailDomains: [String] = [],
        minimumVersion: String? = nil,
        settings: Components.Schemas.AppSettings = .defaults,
        authentication: AppAuthentication = .basic,
        createdAt: Date
    ) {
        self.id = id
        self.name = name
        self.emailDomains = emailDomains
        self.minimumVersion = minimumVersion
        self.settings = settings
        self.authentication = authentication
        self.createdAt = createdAt
    }
}

/// A person who can sign in; the server keeps only a bcrypt hash of the password.
public struct UserRecord: Sendable, Hashable, Codable {
    public var username: String
    public var displayName: String
    public var passwordHash: String
    public var blocked: Bool
    public var createdAt: Date
    /// What decides which entities of a set with a subset the user receives.
    public var attributes: UserAttributes

    public init(
        username: String,
        displayName: String,
        passwordHash: String,
        blocked: Bool = false,
        createdAt: Date,
        attributes: UserAttributes = UserAttributes()
    ) {
        self.username = username
        self.displayName = displayName
        self.passwordHash = passwordHash
        self.blocked = blocked
        self.createdAt = createdAt
        self.attributes = attributes
    }
}

/// A signed-in session: the SHA-256 of its bearer token, never the token.
public struct SessionRecord: Sendable, Hashable, Codable {
    public var tokenHash: Data
    public var appID: String
    public var username: String
    public var deviceID: String
    public var createdAt: Date
    public var expiresAt: Date
    public var revoked: Bool

    public init(
        tokenHash: Data,
        appID: String,
        username: String,
        deviceID: String,
        createdAt: Date,
        expiresAt: Date,
        revoked: Bool = false
    ) {
        self.tokenHash = tokenHash
        self.appID = appID
        self.username = username
        self.deviceID = deviceID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revoked = revoked
    }
}

/// The state of a device registration an admin can change.
public enum DeviceStatus: String, Sendable, Hashable, CaseIterable, Codable {
    case active
    case locked
    case wiped
}

/// One device registered for one user of one app.
public struct DeviceRecord: Sendable, Hashable, Codable {
    public var registrationID: String
    public var appID: String
    public var username: String
    public var deviceID: String
    public var deviceName: String
    public var platform: String
    public var appVersion: String
    public var status: DeviceStatus
    /// When ``status`` last changed; sessions older than this are refused while the
    /// registration is locked or wiped.
    public var statusChangedAt: Date
    /// The recovery secret as stored: 32 random bytes sealed with the server key (AES-GCM,
    /// bound to the registration ID), which the server opens only to release it.
    public var recoverySecret: Data
    public var registeredAt: Date
    public var lastContactAt: Date?
    /// The user's key for signing offline changes on this device (the 65-byte P-256
    /// point), once the device registered one.
    public var changeKey: Data?

    /// Whether a wiped registration's device heard of the wipe (and erased the user's
    /// data): it reached the server since.
    public var wipeReachedDevice: Bool {
        status == .wiped && (lastContactAt.map { $0 > statusChangedAt } ?? false)
    }

    public init(
        registrationID: String,
        appID: String,
        username: String,
        deviceID: String,
        deviceName: String,
        platform: String,
        appVersion: String,
        status: DeviceStatus = .active,
        statusChangedAt: Date,
        recoverySecret: Data,
        registeredAt: Date,
        lastContactAt: Date? = nil,
        changeKey: Data? = nil
    ) {
        self.registrationID = registrationID
        self.appID = appID
        self.username = username
        self.deviceID = deviceID
        self.deviceName = deviceName
        self.platform = platform
        self.appVersion = appVersion
        self.status = status
        self.statusChangedAt = statusChangedAt
        self.recoverySecret = recoverySecret
        self.registeredAt = registeredAt
        self.lastContactAt = lastContactAt
        self.changeKey = changeKey
    }
}

/// The sign-in attempts counted under one throttle key (a user name, a user name and an
/// address, or a device cookie): how many were let through since the window began, and
/// until when no more are.
public struct SignInAttempts: Sendable, Hashable, Codable {
    public var key: String
    /// Attempts let through since ``windowStart``, those still being checked included.
    public var count: Int
    public var windowStart: Date
    public var blockedUntil: Date?

    public init(key: String, count: Int, windowStart: Date, blockedUntil: Date? = nil) {
        self.key = key
        self.count = count
        self.windowStart = windowStart
        self.blockedUntil = blockedUntil
    }
}

/// What one sign-in changes in the attempts it read: rows to store and keys to forget.
public struct SignInAttemptsChange: Sendable, Hashable {
    public var save: [SignInAttempts]
    public var clear: [String]

    public init(save: [SignInAttempts] = [], clear: [String] = []) {
        self.save = save
        self.clear = clear
    }
}

/// A device cookie the server gave a device at a successful sign-in: its hash and whose it
/// is. A sign-in that presents it is throttled apart from everyone else guessing that
/// user's password (see the DocC's security model).
public struct DeviceCookieRecord: Sendable, Hashable, Codable {
    /// How long a cookie counts from when it was given; a sign-in after that gets a new
    /// one, and the row goes.
    public static let lifetime: Duration = .seconds(180 * 24 * 60 * 60)

    public var tokenHash: Data
    public var username: String
    public var createdAt: Date

    public init(tokenHash: Data, username: String, createdAt: Date) {
        self.tokenHash = tokenHash
        self.username = username
        self.createdAt = createdAt
    }
}

/// How many uploaded log entries the server keeps of one device, and for how long: an
/// upload past either drops that device's oldest entries in the same transaction, so no
/// device can fill the database with logs.
public struct LogRetention: Sendable, Hashable {
    /// The most entries kept per app, user and device.
    public var entriesPerDevice: Int
    /// The most entries kept per app and user, whatever their devices.
    public var entriesPerUser: Int
    /// The most entries kept per app.
    public var entriesPerApp: Int
    /// Entries received before this are dropped.
    public var receivedAfter: Date

    public init(entriesPerDevice: Int, entriesPerUser: Int? = nil, entriesPerApp: Int? = nil, receivedAfter: Date) {
        self.entriesPerDevice = entriesPerDevice
        self.entriesPerUser = entriesPerUser ?? entriesPerDevice * 2
        self.entriesPerApp = entriesPerApp ?? entriesPerDevice * 20
        self.receivedAfter = receivedAfter
    }

    /// 10,000 entries per device, 20,000 per user and 200,000 per app, for 30 days before
    /// `now`.
    public static func standard(now: Date) -> Self {
        Self(
            entriesPerDevice: 10_000,
            entriesPerUser: 20_000,
            entriesPerApp: 200_000,
            receivedAfter: now.addingTimeInterval(-30 * 24 * 60 * 60)
        )
    }
}

/// A log entry a device uploaded.
public struct LogRecord: Sendable, Hashable, Codable {
    /// The entry's place in the order entries were received, once stored.
    public var id: Int64?
    public var appID: String
    public var username: String
    public var deviceID: String
    public var time: Date
    public var level: String
    public var message: String
    public var source: String?
    public var receivedAt: Date

    public init(
        appID: String,
        username: String,
        deviceID: String,
        time: Date,
        level: String,
        message: String,
        source: String?,
        receivedAt: Date,
        id: Int64? = nil
    ) {
        self.id = id
        self.appID = appID
        self.username = username
        self.deviceID = deviceID
        self.time = time
        self.level = level
        self.message = message
        self.source = source
        self.receivedAt = receivedAt
    }
}

/// One entity of an app's data: a record in one of its entity sets (such as `checks`),
/// with named text fields and a version that goes up by one at each change.
public struct EntityRecord: Sendable, Hashable {
    public var appID: String
    public var entitySet: String
    public var id: String
    public var fields: [String: String]
    /// 1 when the entity was put first; one more at each change.
    public var version: Int64
    public var updatedAt: Date
    /// `admin`, or the user name that made the last change.
    public var updatedBy: String
    /// The version at which each field was last set or removed (see `EntityState`);
    /// empty for entities stored before fields had versions.
    public var fieldVersions: [String: Int64]
    /// Where its last write stands in its set's change log (``ServerStorage/entityLog(appID:entitySet:after:through:includingRemovals:limit:)``):
    /// 0 until it is written.
    public var position: Int64

    public init(
        appID: String,
        entitySet: String,
        id: String,
        fields: [String: String],
        version: Int64 = 1,
        updatedAt: Date,
        updatedBy: String,
        fieldVersions: [String: Int64] = [:],
        position: Int64 = 0
    ) {
        self.appID = appID
        self.entitySet = entitySet
        self.id = id
        self.fields = fields
        self.version = version
        self.updatedAt = updatedAt
        self.updatedBy = updatedBy
        self.fieldVersions = fieldVersions
        self.position = position
    }

    /// The entity as a merge sees it.
    var state: EntityState { EntityState(fields: fields, version: version, fieldVersions: fieldVersions) }

    /// The field versions after this entity's fields replace `previous`'s at `version`: a
    /// field whose value is new, or that is gone, gets `version`; the others keep theirs.
    static func fieldVersions(
        replacing previous: EntityRecord?,
        with fields: [String: String],
        at version: Int64
    )
        -> [String: Int64]
    {
        guard let previous else { return fields.mapValues { _ in version } }
        let old = previous.state
        var versions: [String: Int64] = [:]
        for name in Set(fields.keys).union(old.fields.keys).union(old.fieldVersions.keys) {
            versions[name] = fields[name] == old.fields[name] ? old.versionOfField(name) : version
        }
        return versions.filter { $0.value > 0 }
    }
}

/// A change the server ended, as recorded: who made it, whose session carried it, and
/// its result.
public struct RecordedChange: Sendable, Hashable {
    public var appID: String
    public var registrationID: String
    public var author: String
    public var carrier: String
    public var entitySet: String
    public var entityID: String
    public var result: ChangeResult
    public var receivedAt: Date
}

/// A verified change, as the server records it: who made it and whose session carried it.
public struct ChangeApplication: Sendable, Hashable {
    public var appID: String
    public var change: Change
    /// The user whose session uploaded it (the author, or the next user of the device).
    public var carrier: String
    public var receivedAt: Date

    public init(appID: String, change: Change, carrier: String, receivedAt: Date) {
        self.appID = appID
        self.change = change
        self.carrier = carrier
        self.receivedAt = receivedAt
    }
}

extension UserRecord {
    /// The user as a page names them: the display name with the user name, which tells
    /// apart two people who share a display name (`Alice Martin (alice-2)`).
    package var shownName: String { displayName == username ? username : "\(displayName) (\(username))" }
}
