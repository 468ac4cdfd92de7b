import GangwayFlows
import GangwayScreens

/// What the device app asks of each user it onboards, after the sign-in and before the
/// passcode: its licence agreement (declining it ends the onboarding, nothing kept) and
/// an optional consent to usage reports. The answers are kept in the user's store. A new
/// version, the app's or the one `gangway admin agreements` sets on the server, is asked
/// at the next launch or unlock; declining the agreement then closes the session and
/// keeps the data.
enum AppTerms {
    static var eula: EULAStep {
        EULAStep(version: "2026.11", text: localized("terms.eula"))
    }

    static var usageReports: ConsentStep {
        ConsentStep(
            topic: "usage-reports",
            version: 1,
            isRequired: false,
            pages: [ConsentScreen.Page(title: localized("terms.reportsTitle"), body: localized("terms.reportsBody"))],
            followsServer: true
        )
    }

    /// The onboarding's extra steps, in order.
    static var steps: [any Step] { [eula, usageReports] }
}
