import GangwayFlows
import GangwayScreens

/// What the device app asks of each user it onboards, after the sign-in and before the
/// passcode: its licence agreement (declining it ends the onboarding, nothing kept) and
/// an optional consent to usage reports. The answers are kept in the user's store. A new
/// version, the app's or the one `gangway admin agreements` sets on the server, is asked
/// at the next launch or unlock; declining the agreement then closes the session and
/// keeps the data.
enum AppTerms {
    static let eula = EULAStep(
        version: "2026.11",
        text: """
            Gangway terminal app: licence agreement (demo).
            You use this app for the aircraft ground checks your airline assigns you.
            Its data stays in your encrypted store on this device and on your airline's
            server; your administrator can lock or wipe it remotely.
            """
    )

    static let usageReports = ConsentStep(
        topic: "usage-reports",
        version: 1,
        isRequired: false,
        pages: [
            ConsentScreen.Page(
                title: "Usage reports",
                body: """
                    Send anonymous reports of how the app is used to your airline's server?
                    You can decline; the app works the same.
                    """
            )
        ],
        followsServer: true
    )

    /// The onboarding's extra steps, in order.
    static let steps: [any Step] = [eula, usageReports]
}
