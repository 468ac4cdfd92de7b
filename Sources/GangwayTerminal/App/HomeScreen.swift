import Foundation
import GangwayFlows
import GangwayServices
import GangwayStore

/// The screen a person sees once the session is open: who is signed in, the device,
/// the server and its last contact, and the passcode policy in force.
struct HomeScreen: Sendable {
    let console: Console
    let manager: SessionManager
    let registry: UserRegistry
    let serverURL: URL

    /// Sample checks shown in demo mode.
    static let sampleChecks = [
        "A320 F-GKXA  stand 12  fuel level      done",
        "A320 F-GKXA  stand 12  tyre pressure   open",
        "A321 F-GTAJ  stand 14  walk-around     open",
    ]

    func show() async {
        guard let session = await manager.session else {
            console.line("No one is signed in.")
            return
        }
        let context = await manager.flowContext
        let localUser = try? registry.user(session.onboardingID)
        let account = context.flatMap { try? ServiceAccount(reading: $0.credentials) }
        console.heading(context?.info[.appConfiguration]?.appName ?? "Home")
        if let user = account?.user {
            console.line("Signed in:      \(user.displayName) (\(user.id))")
        } else {
            console.line("Signed in:      \(localUser?.displayName ?? "a local user")")
        }
        let users = (try? registry.users()) ?? []
        if users.count > 1 {
            console.line("On this device: \(users.map(\.displayName).joined(separator: ", "))")
        }
        if let registration = context?.info[.deviceRegistration] {
            console.line("Registration:   \(registration.registrationID) (device \(registration.deviceID))")
        }
        let contact = account?.lastContact.map { Self.format($0) } ?? "never"
        console.line("Server:         \(serverURL.absoluteString), last contact \(contact)")
        if let store = await manager.store {
            console.line("Passcode:       \(Self.describe(store.policy, protected: store.isPasscodeProtected))")
            console.line("Biometrics:     \(store.isBiometricUnlockEnabled ? "on" : "off")")
        }
        console.line(
            console.styled(
                "Commands: lock, resume, wait, switch, add, passcode, biometrics, logout, remove, quit, help",
                .dim
            )
        )
    }

    static func describe(_ policy: PasscodePolicy?, protected: Bool) -> String {
        guard let policy, protected else { return "none" }
        return PolicyText.describe(policy)
    }

    static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date)
    }
}
