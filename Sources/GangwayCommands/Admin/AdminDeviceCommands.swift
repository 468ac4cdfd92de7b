import ArgumentParser
import Foundation
import GangwayAdmin
import GangwayProtocol
import GangwayServerStorage
import GangwayServices
import GangwayTerminal

/// `gangway admin devices`.
struct AdminDevices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List an app's device registrations; lock, wipe or unlock one.",
        discussion: """
            What each action is for: LOCK ends the session on that device and refuses it, \
            signing in there included, until it is unlocked (UNLOCK, or the console); the \
            person's other devices are not locked. \
            WIPE makes that device erase the user's data at its next server contact, and \
            replaces its recovery secret. BLOCK (gangway admin users block) keeps the person \
            out on every device, old or new, until unblocked; their right password is \
            answered as a wrong one. For a lost or stolen device: wipe its registration, and \
            if the password may be known too, block the user (or change their password) \
            until they have a new device.
            """,
        subcommands: [
            AdminDevicesList.self, AdminDeviceStatus<Lock>.self, AdminDeviceStatus<Wipe>.self,
            AdminDeviceStatus<Unlock>.self,
        ],
        defaultSubcommand: AdminDevicesList.self
    )
}

struct AdminDevicesList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the registrations (the default)."
    )

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption

    @Option(help: "Only the registrations of users whose name starts with this.")
    var user: String?

    @Option(help: "Only those active, locked or wiped.")
    var status: ManagedDevice.Status?

    @Option(help: "Start after this registration (the last one of the page before).")
    var after: String?

    @OptionGroup var limit: ListLimitOption

    func validate() throws {
        if let user, user.unicodeScalars.count > APILimits.usernamePrefix.upperBound {
            throw ValidationError("--user holds at most \(APILimits.usernamePrefix.upperBound) characters.")
        }
        if let after, UUID(uuidString: after) == nil {
            throw ValidationError("--after takes a registration ID, as the list shows it.")
        }
    }

    func run() async throws {
        // The list shows registration IDs in lower case, as the server keeps them.
        let (user, status, after, limit) = (user, status, after?.lowercased(), limit.value)
        try await server.run { admin in
            let devices = try await admin.devices(
                app: try await app.resolve(with: admin),
                user: user,
                status: status,
                after: after,
                limit: limit
            )
            Console.standardOutput(
                devices.isEmpty && after != nil
                    ? "No more devices after that registration." : AdminFormatter.devices(devices)
            )
        }
    }
}

extension ManagedDevice.Status: ExpressibleByArgument {}

/// What one of the status commands does.
protocol DeviceStatusChange: SendableMetatype {
    static var name: String { get }
    static var abstract: String { get }
    static var status: ManagedDevice.Status { get }
    static var done: String { get }
}

enum Lock: DeviceStatusChange {
    static let name = "lock"
    static let abstract = "Lock a registration: its session ends, and the device is refused until it is unlocked."
    static let status = ManagedDevice.Status.locked
    static let done = "the device is refused, signing in there included, until it is unlocked"
}

enum Wipe: DeviceStatusChange {
    static let name = "wipe"
    static let abstract = "Wipe a registration: the device erases the user's data at its next server contact."
    static let status = ManagedDevice.Status.wiped
    static let done = "the device erases the user's data at its next server contact"
}

enum Unlock: DeviceStatusChange {
    static let name = "unlock"
    static let abstract = "Make a locked or wiped registration active again; the device signs in anew."
    static let status = ManagedDevice.Status.active
    static let done = "the device signs in anew, and is served as before"
}

struct AdminDeviceStatus<Change: DeviceStatusChange>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: Change.name,
            abstract: Change.abstract,
            discussion: """
                REGISTRATION is a registration ID from 'gangway admin devices', or a user \
                name when that user has a single registration not yet wiped.

                \(AdminDevices.configuration.discussion)
                """
        )
    }

    @OptionGroup var server: AdminOptions
    @OptionGroup var app: AppOption

    @Argument(help: "A registration ID, or a user name.")
    var registration: String

    func validate() throws {
        if UUID(uuidString: registration) == nil {
            try IdentifierArgument.check(registration, as: "the registration or user name", .username)
        }
    }

    func run() async throws {
        // Both are kept in lower case; either may be typed in any.
        let registration = registration.lowercased()
        try await server.run { admin in
            let id = try await app.resolve(with: admin)
            let devices = try await admin.devices(app: id)
            let target = try Self.pick(registration, among: devices)
            try await admin.setDeviceStatus(Change.status, app: id, registration: target.registrationID)
            Console.standardOutput(
                "\(target.registrationID) (\(target.username) on \(target.deviceName)) is \(Change.status.rawValue): \(Change.done)."
            )
        }
    }

    static func pick(_ registration: String, among devices: [ManagedDevice]) throws -> ManagedDevice {
        if let device = devices.first(where: { $0.registrationID == registration }) { return device }
        let users = devices.filter { $0.username == registration && $0.status != .wiped }
        switch users.count {
        case 1: return users[0]
        case 0: throw CommandFailure("no registration \(registration), and no user of that name with one.")
        default:
            throw CommandFailure(
                "\(registration) has \(users.count) registrations; give one of \(users.map(\.registrationID).joined(separator: ", "))."
            )
        }
    }
}
