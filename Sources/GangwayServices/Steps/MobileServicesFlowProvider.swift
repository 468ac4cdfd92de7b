import GangwayFlows
import Logging

/// Gangway's default step lists for an app onboarding against the mobile-services
/// server, usable as they are:
///
/// | Flow | Steps |
/// |---|---|
/// | onboard | welcome, version check, authentication, device registration, settings download, user check, *extra*, store, policy apply, *permissions* (with ``AgreementsPlacement/afterPasscode``: store, policy apply, *permissions*, *extra*), *hand-over*, log upload |
/// | restore | welcome, version check, store, settings download, policy apply, *extra*, *hand-over*, log upload |
/// | reset passcode | welcome, version check, authentication, device registration, settings download, user check, store, policy apply |
/// | reset | the onboarding steps, undone last first |
/// | background | settings download, policy apply (quietly: see ``SettingsDownloadStep``), log upload |
/// | unlock | *extra* (after the passcode on return from the background) |
///
/// The device registers right after the sign-in: a registration an administrator wiped
/// answers every other call with `TRAFFIC_REG_WIPED` until the device registers anew. On
/// restore the store opens before the settings download because the session token lives
/// in the user's secure store. `extra` steps (EULA, consent) run during onboarding
/// before the store is created (or after it: ``AgreementsPlacement``), and at each launch and unlock after the settings, so a
/// new version the server asks for is accepted before the person reaches their data.
/// `permissions` (camera, location, notifications) are asked once, in the onboarding,
/// right after the passcode, as the design guideline orders them. The offline
/// *hand-over* (``OfflineHandOverStep``) sends what waits on a shared device once the
/// person is in and the app's agreements are answered; a user switch is an onboarding or
/// a restore, and a forgotten passcode's reset is a way in as well, so each hands over.
public struct MobileServicesFlowProvider: FlowProvider {
    /// Where the `extra` steps (agreements, consents) go in an onboarding.
    public enum AgreementsPlacement: Sendable, Hashable {
        /// After the sign-in, before the passcode: a person who declines has chosen no
        /// passcode for nothing, and nothing was written to the device. The default, as
        /// in Gangway's acceptance story.
        case beforePasscode
        /// After the passcode, as the reference's design guideline orders the first run
        /// (activation, authentication, passcode, then permissions and consent): the
        /// answers go straight into the user's secure store; declining rolls the
        /// onboarding back, store included.
        case afterPasscode
    }

    public let services: MobileServices
    public let storeManager: StoreManager
    public let users: any OnboardingIDManager
    public let extra: [any Step]
    /// Where `extra` goes in an onboarding.
    public let placement: AgreementsPlacement
    /// The platform permissions asked after the passcode at onboarding; `nil`: none.
    public let permissions: PermissionsStep?
    /// Sends the user's logs at launch and in the background, where allowed; `nil`: none.
    public let logUpload: LogUploadStep?
    /// Sends the offline work waiting on the device at each onboarding and launch that
    /// reached the server; `nil`: the app sends it itself.
    public let handOver: OfflineHandOverStep?

    public init(
        services: MobileServices,
        storeManager: StoreManager,
        users: any OnboardingIDManager,
        extra: [any Step] = [],
        placement: AgreementsPlacement = .beforePasscode,
        permissions: PermissionsStep? = nil,
        logUpload: LogUploadStep? = nil,
        handOver: OfflineHandOverStep? = nil
    ) {
        self.handOver = handOver
        self.permissions = permissions
        self.logUpload = logUpload
        self.services = services
        self.storeManager = storeManager
        self.users = users
        self.extra = extra
        self.placement = placement
    }

    public func steps(for type: FlowType) -> [any Step] {
        let welcome = WelcomeStep(services: services)
        let version = VersionCheckStep(services: services)
        let auth = AuthenticationStep(services: services)
        let settings = SettingsDownloadStep(services: services)
        let check = UserCheckStep(users: users)
        let registration = DeviceRegistrationStep(services: services)
        let store = StoreStep(manager: storeManager)
        let policy = PasscodePolicyApplyStep(manager: storeManager)
        let logs: [any Step] = logUpload.map { [$0] } ?? []
        let handing: [any Step] = handOver.map { [$0] } ?? []
        let asked: [any Step] = permissions.map { [$0] } ?? []
        let tagging: [any Step] = logUpload.map { [$0.tagging] } ?? []
        switch type {
        case .onboard, .reset:
            let signedIn: [any Step] = tagging + [welcome, version, auth, registration, settings, check]
            switch placement {
            case .beforePasscode: return signedIn + extra + [store, policy] + asked + handing + logs
            case .afterPasscode: return signedIn + [store, policy] + asked + extra + handing + logs
            }
        case .restore:
            return tagging + [welcome, version, store, settings, policy] + extra + handing + logs
        case .resetPasscode:
            return tagging + [
                welcome, version, auth, registration, settings, check, store, registration.keysAfterReset,
            ]
                + [policy] + handing
        case .background:
            return [settings, policy] + logs
        case .unlock:
            return extra
        }
    }
}
