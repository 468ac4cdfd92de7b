import Foundation
import GangwayFlows
import GangwayPolicy
import GangwayProtocol
import GangwayScreens
import GangwayServices
import GangwayStore

/// The screen a person sees once the session is open: who is signed in, the device,
/// the server and its last contact, the passcode policy in force, and the aircraft
/// checks the app serves (read from the server each time, or the copy kept offline).
struct HomeScreen: Sendable {
    let console: Console
    let manager: SessionManager
    let registry: UserRegistry
    let serverURL: URL
    /// This device's ID, as it registers with the server.
    let deviceID: String
    let data: AppDataReader
    let work: OfflineWork
    let network: NetworkSwitch

    /// - Throws: ``PresenterError/closed`` when the input ended in a screen the server's
    ///   answer brought (a sign-in after `logout server`), before anything of the home
    ///   screen shows.
    func show() async throws(PresenterError) {
        guard let session = await manager.session else {
            console.line(localized("home.noSession"))
            return
        }
        let context = await manager.flowContext
        // The checks are read first, before a line of the screen: a read the server
        // answered is a contact too, and a sign-in it asks for is a screen of its own.
        var reading: Result<AppDataReading, any Error>?
        if let context {
            do {
                reading = .success(try await data.read(ChecksText.entitySet, in: context))
            } catch {
                if let closed = DeviceApp.cause(of: error) as? PresenterError, closed == .closed { throw closed }
                reading = .failure(error)
            }
        }
        let localUser = try? registry.user(session.onboardingID)
        let account = context.flatMap { try? ServiceAccount(reading: $0.credentials) }
        console.heading(context?.info[.appConfiguration]?.appName ?? localized("home.title"))
        if let user = account?.user {
            console.line(localized("home.signedIn", user.displayName, user.id))
        } else {
            console.line(localized("home.signedInLocally", localUser?.displayName ?? localized("home.localUser")))
        }
        let users = (try? registry.users()) ?? []
        if users.count > 1 {
            console.line(localized("home.users", users.map(\.displayName).joined(separator: ", ")))
        }
        // Kept in the user's store: shown after an offline restore as after a sign-in.
        if let registrationID = context?.info[.deviceRegistration]?.registrationID ?? account?.registrationID {
            console.line(localized("home.registration", registrationID, deviceID))
        }
        let lastContact = Self.lastContact(settingsExchange: account?.lastContact, reading: try? reading?.get())
        let contact = lastContact.map { TerminalTime.dateAndTime($0) } ?? localized("home.never")
        let offline = network.isOffline ? localized("home.offlineNote") : ""
        console.line(localized("home.server", serverURL.absoluteString, contact, offline))
        if let store = await manager.store {
            console.line(localized("home.passcode", Self.describe(store.policy, protected: store.isPasscodeProtected)))
            console.line(localized(store.isBiometricUnlockEnabled ? "home.biometricsOn" : "home.biometricsOff"))
            let reports = Self.reports(allowed: Self.reportsAllowed(in: store), settings: account?.settings)
            console.line(localized("home.reports", reports))
            if let terms = try? TermsAcceptance.load(from: store) {
                let documents = terms.documents.map { "\($0.title) \($0.version)" }.joined(separator: ", ")
                console.line(localized("home.terms", documents, TerminalTime.dateAndTime(terms.acceptedAt)))
            }
        }
        if let context, let reading { showChecks(reading, in: context) }
        console.line(console.styled(localized("home.commands"), .dim))
    }

    /// The checks, fresh from the server or as kept, and why they are not fresh.
    private func showChecks(_ result: Result<AppDataReading, any Error>, in context: FlowContext) {
        let reading: AppDataReading
        do {
            reading = try result.get()
        } catch {
            console.line(console.styled(localized("checks.unreadable", TerminalText.describe(error)), .red))
            return
        }
        let shown =
            (try? work.view(reading.entities, of: ChecksText.entitySet, in: context))
            ?? reading.entities.map { .init(entity: $0, pending: false, needsAttention: false) }
        let count = shown.count
        let what = count == 0 ? localized("checks.none") : localized("checks.count", count: count)
        let when = reading.fetchedAt.map { TerminalTime.dateAndTime($0) }
        let editable =
            (try? work.canEdit(ChecksText.entitySet, in: context)) == true ? "" : localized("checks.readOnly")
        // Offline by the person's own switch: that is why, not an unreachable server.
        let why = reading.failure.map { network.isOffline ? localized("checks.offline") : $0.summary }
        switch (why, when) {
        case (nil, _):
            console.line(localized("checks.fresh", what, editable))
        case (let why?, let when?):
            console.line(localized("checks.kept", what, when, editable))
            console.line(console.styled(localized("checks.notRefreshed", why), .yellow))
        case (let why?, nil) where shown.isEmpty:
            console.line(localized("checks.noneKept"))
            console.line(console.styled(localized("checks.notRead", why), .yellow))
        case (let why?, nil):
            console.line(localized("checks.madeHere", what))
            console.line(console.styled(localized("checks.notRead", why), .yellow))
        }
        if let waiting = try? work.waiting(in: context), waiting.own + waiting.others > 0 {
            var parts = [localized("home.pendingOwn", OfflineCommands.count(waiting.own))]
            if waiting.others > 0 { parts.append(localized("home.pendingOthers", waiting.others)) }
            console.line(localized("home.pending", parts.joined(separator: ", ")))
        }
        let attention = shown.filter(\.needsAttention).count
        if attention > 0 {
            console.line(console.styled(localized("home.attention", count: attention), .yellow))
        }
        // A page at most: those the user's own work touches first, then the rest in order;
        // `checks` lists them all, filtered and paged.
        let first =
            shown.filter { $0.pending || $0.needsAttention } + shown.filter { !$0.pending && !$0.needsAttention }
        let listed = Array(first.prefix(OfflineCommands.checksPerPage))
        let order = Dictionary(uniqueKeysWithValues: shown.enumerated().map { ($1.entity.id, $0) })
        let page = listed.sorted { order[$0.entity.id] ?? 0 < order[$1.entity.id] ?? 0 }
        for line in ChecksText.lines(page) { console.line("  \(line)") }
        if shown.count > page.count {
            console.line(console.styled(localized("home.moreChecks", shown.count - page.count), .dim))
        }
    }

    /// Whether the person allows usage reports (their consent's last answer).
    static func reportsAllowed(in store: any CredentialStore) -> Bool {
        (try? ConsentRecord.load(topic: AppTerms.usageReports.topic, from: store))??.accepted == true
    }

    /// What happens to the app's logs, as the home screen says it.
    static func reports(allowed: Bool, settings: ServerSettings?) -> String {
        guard allowed else { return localized("reports.notSent") }
        guard let settings, settings.logUploadEnabled else { return localized("reports.serverTakesNone") }
        return localized("reports.sent", settings.logLevel, settings.logUploadInterval.components.seconds)
    }

    static func describe(_ policy: PasscodePolicy?, protected: Bool) -> String {
        guard let policy, protected else { return localized("home.passcodeNone") }
        return PolicyText.describe(policy)
    }

    /// The server's last contact as the home screen says it: the later of the last
    /// settings exchange and the contact that read the checks shown (just now, or when
    /// the kept copy was read), so it is never older than the data on the screen.
    static func lastContact(settingsExchange: Date?, reading: AppDataReading?) -> Date? {
        [settingsExchange, reading?.fetchedAt].compactMap { $0 }.max()
    }
}
