import GangwayScreens

/// Asks for the platform permissions an app needs (camera, location, notifications), as
/// the design guideline places them: once, in the onboarding, after the passcode. Each
/// one the platform has not decided yet gets the app's own page first
/// (``PermissionScreen``: why, "Allow" or "Not Now"); only "Allow" goes on to the
/// platform's question. Skipping is always possible and the onboarding goes on whatever
/// the answers; a permission the platform already decided (on a shared device, by an
/// earlier user) is not asked again.
///
/// A launch, an unlock or a passcode reset asks nothing. The statuses after the step are
/// in the context under ``FlowInfoKey/permissions``.
public struct PermissionsStep: Step {
    /// One permission the app asks for, with why.
    public struct Request: Sendable, Hashable {
        public let permission: Permission
        /// Why the app needs it, in the app's words; `nil`: the default text.
        public let reason: String?

        public init(_ permission: Permission, reason: String? = nil) {
            self.permission = permission
            self.reason = reason
        }
    }

    /// The permissions asked, in order; a permission named twice is asked once.
    public let requests: [Request]
    /// The platform that answers.
    public let platform: any PlatformPermissions
    /// The pages' texts.
    public var strings: PermissionScreen.Strings

    public init(
        _ requests: [Request],
        platform: any PlatformPermissions,
        strings: PermissionScreen.Strings = PermissionScreen.Strings()
    ) {
        var seen: Set<Permission> = []
        self.requests = requests.filter { seen.insert($0.permission).inserted }
        self.platform = platform
        self.strings = strings
    }

    public func onboard(_ context: FlowContext) async throws -> FlowContext {
        var statuses: [Permission: PermissionStatus] = [:]
        var due: [Request] = []
        for request in requests {
            let status = await platform.status(of: request.permission)
            statuses[request.permission] = status
            if status == .notDetermined { due.append(request) }
        }
        for (index, request) in due.enumerated() {
            let screen = PermissionScreen(
                permission: request.permission,
                reason: request.reason,
                position: index + 1,
                count: due.count,
                strings: strings
            )
            switch try await context.presenter.present(screen) {
            case .allow: statuses[request.permission] = try await platform.request(request.permission)
            case .notNow: break
            }
        }
        var context = context
        context.info[.permissions] = statuses
        return context
    }
}

extension FlowInfoKey where Value == [Permission: PermissionStatus] {
    /// Where the platform stands on each permission the onboarding asked for.
    public static var permissions: Self { Self("gangway.permissions") }
}
