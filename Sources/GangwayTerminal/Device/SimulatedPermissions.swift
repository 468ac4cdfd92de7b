import Foundation
import GangwayFlows
import GangwayScreens
import GangwaySystem

/// The terminal's permission API: a simulation of the platform's, since a terminal has
/// none. Its question is the platform's own ("Allow … to use the camera?"), asked after
/// the app's page; the answers are the device's, kept in `permissions.json` of the device
/// directory for every user of the device and every later run, as a platform keeps them.
/// `permissions allow|deny|reset NAME` at the home prompt plays the device's settings app.
struct SimulatedPermissions: PlatformPermissions {
    /// Where the answers are kept.
    let file: URL
    let console: Console

    func status(of permission: Permission) async -> PermissionStatus {
        (try? saved())?[permission] ?? .notDetermined
    }

    func request(_ permission: Permission) async throws -> PermissionStatus {
        console.line(console.styled(localized("permissions.systemQuestion.\(permission)"), .bold))
        let status = try await console.choose([
            ChoiceOption(localized("permissions.systemAllow"), words: ["allow"], PermissionStatus.granted),
            ChoiceOption(localized("permissions.systemDeny"), words: ["don't allow", "deny"], .denied),
        ])
        try set(permission, to: status)
        return status
    }

    /// The statuses the device keeps, by permission; what is not kept was never asked.
    func saved() throws -> [Permission: PermissionStatus] {
        guard let data = try PrivateFiles.read(file) else { return [:] }
        let raw = try JSONDecoder().decode([String: PermissionStatus].self, from: data)
        return Dictionary(
            uniqueKeysWithValues: raw.compactMap { key, value in Permission(rawValue: key).map { ($0, value) } }
        )
    }

    /// Plays the device's settings: `status` for `permission`
    /// (``PermissionStatus/notDetermined``: as if never asked).
    func set(_ permission: Permission, to status: PermissionStatus) throws {
        var statuses = (try? saved()) ?? [:]
        statuses[permission] = status == .notDetermined ? nil : status
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let raw = Dictionary(uniqueKeysWithValues: statuses.map { ($0.key.rawValue, $0.value) })
        try PrivateFiles.write(try encoder.encode(raw) + Data("\n".utf8), to: file)
    }
}
