import GangwayFlows

/// What the session manager shows between flows: the splash at launch. The home screen
/// is drawn by ``DeviceApp`` after each command; hiding is the presenter's.
struct TerminalSessionUI: SessionUIManaging {
    let console: Console

    func showSplashScreen() async {
        console.line(console.styled("Gangway", .bold) + " · " + localized("splash"))
    }

    func hideApplicationScreens() async {}

    func showApplicationScreens(for session: Session) async {}
}
