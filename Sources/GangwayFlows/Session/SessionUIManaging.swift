/// What the app does when the session manager says so. The session manager never draws:
/// it calls these, and shows onboarding screens through the ``GangwayScreens/Presenter``.
public protocol SessionUIManaging: Sendable {
    /// A flow is about to run: show the splash screen under its screens.
    func showSplashScreen() async
    /// Cover every screen of the app at once: it is going to the background, or the
    /// session closed. Nothing of the user's data may stay visible, even in the app
    /// switcher's snapshot.
    func hideApplicationScreens() async
    /// The session is open (or unlocked, or resumed): show the app.
    func showApplicationScreens(for session: Session) async
}
