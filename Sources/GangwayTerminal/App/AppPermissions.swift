import GangwayFlows
import GangwayScreens

/// The platform permissions the device app asks for (those `--permissions` names), each
/// with why an aircraft ground check needs it.
enum AppPermissions {
    static func step(asking permissions: [Permission], platform: any PlatformPermissions) -> PermissionsStep {
        PermissionsStep(
            permissions.map { PermissionsStep.Request($0, reason: localized("permissions.reason.\($0)")) },
            platform: platform
        )
    }
}
