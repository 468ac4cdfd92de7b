import Foundation
import GangwayPolicy
import GangwayScreens
import GangwayStore
import Logging

/// What an app calls on launch, on background, on foreground, on sign-out and on a shared
/// device when users change. It owns the session's lifecycle (a ``SessionStateMachine``,
/// every transition logged), runs the flows through the ``FlowController``, and tells the
/// app what to show through ``SessionUIManaging``.
///
/// ```swift
/// let session = try await manager.open()          // launch: onboard or restore
/// await manager.enterBackground()                 // screens hidden at once
/// try await manager.enterForeground()             // passcode only past the lock timeout
/// ```
///
/// Times come from an injected monotonic clock, so tests move time by hand and a change
/// of the wall clock cannot shorten the lock timeout.
public actor SessionManager {
    /// The app's sign-out work before the session closes, for example revoking the
    /// server session.
    public typealias LogoutHook = @Sendable (FlowContext) async throws -> Void
    /// Told about user events, in the order observers were added.
    public typealias UserObserver = @Sendable (UserEvent) async -> Void

    /// Who the device's users are.
    public nonisolated let users: any OnboardingIDManager
    /// What opens, unlocks and changes the stores.
    public nonisolated let storeManager: StoreManager

    private let flows: FlowController
    private let ui: any SessionUIManaging
    let presenter: any Presenter
    /// Readings of the injected clock, as durations since the manager was made.
    private let clock: @Sendable () -> Duration
    private let logoutHook: LogoutHook?
    private let logger: Logger
    private(set) var machine = SessionStateMachine()
    private(set) var context: FlowContext?
    /// Whether the next return to the foreground runs the unlock flow even without a
    /// passcode to ask: the background flow learnt agreement versions the person has to see.
    private var unlockFlowDue = false
    private var observers: [UserObserver] = []

    /// - Throws: ``SessionError/misconfigured`` when a multi-user manager is paired with
    ///   a store manager not set up for a shared device, or the other way round.
    public init(
        flows: FlowController,
        users: any OnboardingIDManager,
        storeManager: StoreManager,
        ui: any SessionUIManaging,
        presenter: any Presenter,
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "gangway.session"),
        logout: LogoutHook? = nil
    ) throws(SessionError) {
        guard users.isMultiUser == storeManager.options.isSharedDevice else {
            throw .misconfigured(
                "a multi-user onboarding-ID manager needs a store manager for a shared device, and only it"
            )
        }
        guard !(storeManager.options.isSharedDevice && storeManager.options.storeID != nil) else {
            throw .misconfigured("on a shared device every user needs a store of their own: drop the store ID")
        }
        self.flows = flows
        self.users = users
        self.storeManager = storeManager
        self.ui = ui
        self.presenter = presenter
        self.clock = Self.readings(of: clock)
        self.logger = logger
        self.logoutHook = logout
    }

    /// Readings of `clock` as durations: the lock timeout is measured on it, so a change
    /// of the wall clock cannot shorten it (`ContinuousClock` keeps counting while the
    /// device sleeps). A clock whose instants count from an origin of its own
    /// (``ElapsedInstant``) is read as it is; any other from the time the manager was made.
    private static func readings<C: Clock<Duration>>(of clock: C) -> @Sendable () -> Duration {
        if C.Instant.self == ElapsedInstant.self {
            return { (clock.now as! ElapsedInstant).sinceOrigin }
        }
        let origin = clock.now
        return { origin.duration(to: clock.now) }
    }

    // MARK: State

    /// Where the session is.
    public var state: SessionStateMachine.State { machine.state }

    /// The open (or locked) session.
    public var session: Session? { machine.state.session }

    /// The context the last flow returned, while a session exists.
    public var flowContext: FlowContext? { context }

    /// The user's secure store, while a session exists.
    public var store: SecureStore? { context?.secureStore }

    /// Adds an observer of user events; observers are told in the order they were added.
    public func addObserver(_ observer: @escaping UserObserver) {
        observers.append(observer)
    }

    // MARK: Opening

    /// Launch: restores the user the onboarding-ID manager picks (through the user picker
    /// on a shared device), or onboards a new one.
    ///
    /// A restore whose passcode reached the retry limit erased the user's store (or that
    /// finds the store gone), or that failed with a ``UserDataWipeError`` (the server
    /// wiped the device): the user is erased and forgotten, and the launch starts over (the
    /// user picker on a shared device where others remain, else onboarding). "Forgot
    /// passcode" runs the reset-passcode flow.
    @discardableResult
    public func open() async throws -> Session {
        try transition("open") { machine throws(SessionError) in try machine.startOpening() }
        await ui.showSplashScreen()
        let type: FlowType
        do {
            type = try await users.launchFlow(presenter: presenter)
        } catch {
            try? transition("openingFailed") { machine throws(SessionError) in try machine.openingFailed() }
            throw error
        }
        return try await finishOpening(type)
    }

    /// On a shared device: closes the current session and onboards a new user.
    @discardableResult
    public func addUser() async throws -> Session {
        guard users.isMultiUser else { throw UserError.notMultiUser }
        try await closeIfOpen()
        try transition("addUser") { machine throws(SessionError) in try machine.startOpening() }
        await ui.showSplashScreen()
        return try await finishOpening(.onboard)
    }

    /// On a shared device: closes the current session and restores user `id`.
    @discardableResult
    public func switchUser(to id: UUID) async throws -> Session {
        guard users.isMultiUser else { throw UserError.notMultiUser }
        guard try users.registry.user(id) != nil else { throw UserError.unknownUser(id) }
        try await closeIfOpen()
        try transition("switchUser") { machine throws(SessionError) in try machine.startOpening() }
        await ui.showSplashScreen()
        return try await finishOpening(.restore(id))
    }

    /// On a shared device: closes the current session and shows the user picker.
    @discardableResult
    public func switchUser() async throws -> Session {
        guard users.isMultiUser else { throw UserError.notMultiUser }
        try await closeIfOpen()
        return try await open()
    }

    private func finishOpening(_ type: FlowType) async throws -> Session {
        do {
            let (id, context) = try await runOpening(type)
            let session = Session(onboardingID: id, openedAt: clock())
            self.context = context
            try transition("opened") { machine throws(SessionError) in try machine.opened(session) }
            await ui.showApplicationScreens(for: session)
            return session
        } catch {
            try? transition("openingFailed") { machine throws(SessionError) in try machine.openingFailed() }
            throw error
        }
    }

    /// Runs the flows that open a session; a restore can turn into a passcode reset or,
    /// after the store was erased, an onboarding.
    private func runOpening(_ first: FlowType) async throws -> (UUID, FlowContext) {
        var type = first
        while true {
            switch type {
            case .restore(let id):
                guard try users.registry.user(id) != nil else { throw UserError.unknownUser(id) }
                do {
                    let result = try await flows.run(type, context: FlowContext(onboardingID: id, presenter: presenter))
                    try await selected(id, opened: result)
                    return (id, result)
                } catch let error as FlowError {
                    if (error.underlying as? StoreFlowError) == .passcodeResetRequested {
                        logger.notice("passcode reset requested", metadata: ["user": "\(id)"])
                        type = .resetPasscode(id)
                    } else if (error.underlying as? StoreFlowError) == .switchUserRequested {
                        type = try await users.launchFlow(presenter: presenter)
                    } else if (error.underlying as? StoreFlowError) == .addUserRequested {
                        type = .onboard
                    } else if (error.underlying as? SecureStoreError) == .erased
                        || (error.underlying as? StoreFlowError) == .storeNotFound
                    {
                        logger.warning("the user's store is gone; the user is forgotten", metadata: ["user": "\(id)"])
                        await forget(id, context: FlowContext(onboardingID: id, presenter: presenter))
                        // The device's other users stay: a shared device shows the picker.
                        type = try await afterForgetting(id)
                    } else if let wipe = error.underlying as? any UserDataWipeError, wipe.wipesUserData {
                        logger.warning(
                            "the user's data must be wiped; the user is forgotten",
                            metadata: ["user": "\(id)"]
                        )
                        await forget(id, context: FlowContext(onboardingID: id, presenter: presenter), wiped: wipe)
                        type = try await afterForgetting(id)
                    } else {
                        throw error
                    }
                }
            case .resetPasscode(let id):
                let result: FlowContext
                do {
                    result = try await flows.run(type, context: FlowContext(onboardingID: id, presenter: presenter))
                } catch {
                    guard let next = try await insteadOfMismatch(error, resetting: id) else { throw error }
                    type = next
                    continue
                }
                try await selected(id, opened: result)
                return (id, result)
            case .onboard:
                let id = UUID()
                let result: FlowContext
                do {
                    result = try await flows.run(.onboard, context: FlowContext(onboardingID: id, presenter: presenter))
                } catch {
                    guard let next = try await insteadOfExisting(error) else { throw error }
                    type = next
                    continue
                }
                do {
                    try users.register(id, as: result.info[.serverUser])
                } catch {
                    // Nothing half-onboarded may stay: undo what the flow set up.
                    result.secureStore?.close()
                    _ = try? await flows.run(.reset(id), context: result)
                    throw error
                }
                logger.info("user added", metadata: ["user": "\(id)"])
                await notify(.userAdded(id))
                return (id, result)
            case .reset, .background, .unlock:
                throw SessionError.wrongState("run the \(type) flow to open", in: machine.state)
            }
        }
    }

    /// What opens when the person who signed in to add a user has one here already:
    /// theirs, unlocked with their passcode, or (going back) whatever the launch picks.
    /// `nil` for any other failure.
    private func insteadOfExisting(_ error: FlowError) async throws -> FlowType? {
        guard let userError = error.underlying as? UserError, userError == .userAlreadyExists,
            let existing = userError.onboardingID, let user = try users.registry.user(existing)
        else { return nil }
        logger.notice("the person who signed in has a user here already", metadata: ["user": "\(existing)"])
        let screen = ExistingUserScreen(
            situation: .alreadyOnboarded(existing: user.displayName),
            strings: users.existingUserStrings
        )
        switch try await presenter.present(screen) {
        case .unlockExisting: return .restore(existing)
        case .addUser, .back: return try await users.launchFlow(presenter: presenter)
        }
    }

    /// What opens when someone other than `id` signed in to reset `id`'s passcode: their
    /// own user, unlocked with their passcode; on a shared device, a new user for a person
    /// with none; or (going back) `id`'s passcode again. Never `id`'s data: only `id` may
    /// reset it. `nil` for any other failure.
    private func insteadOfMismatch(_ error: FlowError, resetting id: UUID) async throws -> FlowType? {
        guard let userError = error.underlying as? UserError, userError == .userMismatch,
            let resetting = try users.registry.user(id)
        else { return nil }
        let other = try userError.onboardingID.flatMap { try users.registry.user($0) }
        logger.notice("another person signed in to reset a passcode", metadata: ["user": "\(id)"])
        let screen = ExistingUserScreen(
            situation: .otherPerson(resetting: resetting.displayName, signedIn: other?.displayName),
            allowsAddUser: users.isMultiUser,
            strings: users.existingUserStrings
        )
        switch try await presenter.present(screen) {
        case .unlockExisting: return other.map { .restore($0.id) } ?? .restore(id)
        case .addUser: return .onboard
        case .back: return .restore(id)
        }
    }

    /// Selects `id` and tells observers when that changed who uses the device. The store
    /// the flow opened is closed when the registry cannot record it.
    private func selected(_ id: UUID, opened result: FlowContext) async throws {
        let previous: UUID?
        do {
            previous = try users.registry.selectedUserID()
            try users.select(id)
        } catch {
            result.secureStore?.close()
            throw error
        }
        if let previous, previous != id {
            logger.info("user switched", metadata: ["user": "\(id)"])
            await notify(.userSwitched(to: id))
        }
    }

    // MARK: Background and foreground

    /// The app is going to the background: screens are hidden at once and the time is
    /// remembered; then the background flow runs. A failure there is logged and the
    /// session stays locked, except:
    /// - a ``UserDataWipeError`` (the server wiped the device): the user's data is erased
    ///   at once, the user forgotten and the session closed, so the next foreground finds
    ///   no session and the app opens anew;
    /// - a ``SessionEndingError`` (the server no longer accepts the session): the session
    ///   is closed, the data kept, and observers hear ``UserEvent/sessionEnded(_:reason:)``;
    ///   the next open restores the user, and the restore flow deals with the cause.
    public func enterBackground() async {
        let before = machine.state.name
        let action = machine.enterBackground(at: clock())
        log("enterBackground", from: before)
        guard action == .hideScreens else { return }
        await ui.hideApplicationScreens()
        await presenter.hideAll()
        guard case .locked(let session, _) = machine.state, let context else { return }
        let result: FlowContext
        do {
            result = try await flows.run(.background(session.onboardingID), context: context)
        } catch {
            if let wipe = error.underlying as? any UserDataWipeError, wipe.wipesUserData,
                machine.state.session == session
            {
                logger.warning(
                    "the user's data must be wiped; erasing it",
                    metadata: ["user": "\(session.onboardingID)"]
                )
                do {
                    try await erased(session, wiped: wipe)
                } catch {
                    logger.error("cannot close the wiped session", metadata: ["error": "\(error)"])
                }
                return
            }
            if let ending = error.underlying as? any SessionEndingError, ending.endsSession,
                machine.state.session == session
            {
                logger.notice("the session may not go on; closing it", metadata: ["user": "\(session.onboardingID)"])
                do {
                    try await close()
                } catch {
                    logger.error("cannot close the ended session", metadata: ["error": "\(error)"])
                }
                await notify(.sessionEnded(session.onboardingID, reason: ending.sessionEndReason))
                return
            }
            logger.warning("background flow failed", metadata: ["error": "\(error)"])
            return
        }
        // Other calls may have run while the flow did: keep its context only for the same session.
        guard machine.state.session == session else {
            logger.notice("background flow finished after its session ended; its result is dropped")
            return
        }
        // New agreement versions are asked at the next return, however soon and with or
        // without a passcode: the unlock flow runs then, before any data shows.
        if let learned = result.info[.agreementVersions], learned != context.info[.agreementVersions] {
            unlockFlowDue = true
        }
        self.context = result
    }

    /// The app came back: the app resumes when it was away less than the policy's lock
    /// timeout; otherwise the passcode is asked first (biometrics when on). A policy
    /// change the background flow recorded (``StoreManager/deferPolicy(_:to:)``) asks for
    /// the passcode whatever the time away, then announces and runs the change. "Forgot
    /// passcode" closes the session and runs the reset-passcode flow; on a shared device,
    /// "switch user" and "add user" close it and open the user picker or onboarding; the retry limit
    /// erases the store, forgets the user and closes the session. Any other failure (the
    /// user cancelled a lockout wait) is thrown and the session stays locked: the next
    /// call asks again.
    @discardableResult
    public func enterForeground() async throws -> SessionStateMachine.ForegroundAction {
        let store = context?.secureStore
        let pendingPolicy = try store.map { try storeManager.hasPendingPolicyChange($0) } ?? false
        let before = machine.state.name
        let action = machine.enterForeground(
            at: clock(),
            lockTimeout: pendingPolicy ? .zero : store?.policy?.lockTimeout ?? .zero,
            hasPasscode: store?.isPasscodeProtected ?? false
        )
        log("enterForeground", from: before)
        switch action {
        case .none:
            return .none
        case .resume:
            // Without a passcode nothing is asked first; a recorded policy change still runs,
            // and so does the unlock flow when the background learnt new agreements.
            if pendingPolicy, let store {
                try await storeManager.resumePendingPolicyChange(on: store, presenter: presenter)
            }
            if let session = machine.state.session {
                if unlockFlowDue { try await runUnlockFlow(for: session) }
                await ui.showApplicationScreens(for: session)
            }
            return .resume
        case .unlock:
            guard let store, let session = machine.state.session else { return .unlock }
            do {
                // The passcode just typed is not asked again by a change the policy forces.
                let typed = try await storeManager.unlock(store, presenter: presenter)
                if pendingPolicy {
                    try await storeManager.resumePendingPolicyChange(
                        on: store,
                        presenter: presenter,
                        verifiedCurrent: typed
                    )
                }
            } catch let error as StoreFlowError where error == .passcodeResetRequested {
                try await closeIfOpen()
                try transition("resetPasscode") { machine throws(SessionError) in try machine.startOpening() }
                _ = try await finishOpening(.resetPasscode(session.onboardingID))
                return .unlock
            } catch let error as StoreFlowError where error == .switchUserRequested || error == .addUserRequested {
                // A shift change at the lock screen: this session closes, the next person's opens.
                try await closeIfOpen()
                if error == .addUserRequested {
                    try await addUser()
                } else {
                    try await switchUser()
                }
                return .unlock
            } catch let error as SecureStoreError where error == .erased {
                try await erased(session)
                throw error
            }
            // Any other failure leaves the session waiting for its unlock: the next return
            // to the foreground asks again.
            try transition("unlocked") { machine throws(SessionError) in try machine.unlocked() }
            try await runUnlockFlow(for: session)
            await ui.showApplicationScreens(for: session)
            return .unlock
        }
    }

    /// Runs the unlock flow before the app's screens show: what the background flow
    /// learnt and needs the person (a new licence agreement) is asked now, at an unlock
    /// or at a quick return after it was learnt. Declining a
    /// required agreement closes the session, keeping the data, and throws the
    /// ``ConsentError``: the next open restores the user and asks again. Any other
    /// failure is logged and the app goes on.
    private func runUnlockFlow(for session: Session) async throws {
        unlockFlowDue = false
        guard let context else { return }
        do {
            self.context = try await flows.run(.unlock(session.onboardingID), context: context)
        } catch {
            guard let declined = error.underlying as? ConsentError else {
                logger.warning("unlock flow failed", metadata: ["error": "\(error)"])
                return
            }
            logger.notice(
                "an agreement was declined; closing the session",
                metadata: ["user": "\(session.onboardingID)"]
            )
            try await close()
            await notify(
                .sessionEnded(
                    session.onboardingID,
                    reason: StringTable.text("declined.sessionClosed", declined.message)
                )
            )
            throw declined
        }
    }

    // MARK: Closing

    /// Closes the session: the store's keys are dropped and the app's screens hidden.
    public func close() async throws {
        _ = try transition("close") { machine throws(SessionError) in try machine.close() }
        context?.secureStore?.close()
        context = nil
        await ui.hideApplicationScreens()
    }

    /// Signs out: the logout hook (the server's logout), then ``close()``. A failing hook
    /// leaves the session open and throws.
    public func logout() async throws {
        try await logout(using: logoutHook)
    }

    /// Signs out with `hook` in place of the logout hook: another way to end the session
    /// before it closes (the services' `forgetSession`, when the server cannot be reached).
    /// A failing hook leaves the session open and throws.
    public func logout(using hook: LogoutHook?) async throws {
        guard let context, machine.state.session != nil else {
            throw SessionError.wrongState("logout", in: machine.state)
        }
        try await hook?(context)
        try await close()
    }

    /// Signs out on the server only (the reference's "log out from the server"): the
    /// logout hook runs and the session stays open with its data; the next call to the
    /// server asks the same person to sign in again. A failing hook throws, and nothing
    /// changed.
    public func logoutFromServer() async throws {
        guard let context, machine.state.session != nil else {
            throw SessionError.wrongState("logoutFromServer", in: machine.state)
        }
        try await logoutHook?(context)
    }

    /// Removes the session's user from the device: closes the session, runs the reset
    /// flow (which destroys the user's store) and forgets the user. Other users' data is
    /// not touched.
    public func remove() async throws {
        guard let session = machine.state.session, let context else {
            throw SessionError.wrongState("remove", in: machine.state)
        }
        try await close()
        await forget(session.onboardingID, context: context)
    }

    /// Removes a user whose session is not open (one whose restore keeps failing, so no
    /// session can be opened to call ``remove()``): runs the reset flow, which destroys
    /// their store, and forgets them. Other users' data is not touched; what the user's
    /// changes left sealed in a device-wide outbox is not the store's, and stays.
    /// - Throws: ``SessionError/wrongState`` while a session is open (close it, or use
    ///   ``remove()`` for its own user); ``SessionError/unknownUser`` when `id` is no
    ///   user of this device.
    public func remove(user id: UUID) async throws {
        guard machine.state.session == nil else { throw SessionError.wrongState("remove(user:)", in: machine.state) }
        guard try users.registry.user(id) != nil else { throw SessionError.unknownUser("remove(user:)") }
        await forget(id, context: FlowContext(onboardingID: id, presenter: presenter))
    }

    /// What a launch does once `id` was erased and forgotten: the user picker (or the one
    /// user left), or onboarding; onboarding too when `id` could not be forgotten, so the
    /// launch never picks the erased user again.
    private func afterForgetting(_ id: UUID) async throws -> FlowType {
        guard try users.registry.user(id) == nil else { return .onboard }
        return try await users.launchFlow(presenter: presenter)
    }

    /// The retry limit erased the session's store, or `wiped` says its data must go:
    /// close the session and forget the user.
    func erased(_ session: Session, wiped: (any UserDataWipeError)? = nil) async throws {
        let context = self.context ?? FlowContext(onboardingID: session.onboardingID, presenter: presenter)
        try await closeIfOpen()
        await forget(session.onboardingID, context: context, wiped: wiped)
    }

    private func closeIfOpen() async throws {
        if machine.state.session != nil { try await close() }
    }

    /// Runs the reset flow for `id`, unregisters the user and tells observers (first why,
    /// when `wiped` says the data had to go).
    private func forget(_ id: UUID, context: FlowContext, wiped: (any UserDataWipeError)? = nil) async {
        _ = try? await flows.run(.reset(id), context: context)
        do {
            try users.unregister(id)
        } catch {
            logger.error("cannot unregister a removed user", metadata: ["user": "\(id)", "error": "\(error)"])
        }
        logger.notice("user removed", metadata: ["user": "\(id)"])
        if let wiped { await notify(.userWiped(id, reason: wiped.wipeReason)) }
        await notify(.userRemoved(id))
    }

    // MARK: Internals

    private func notify(_ event: UserEvent) async {
        for observer in observers { await observer(event) }
    }

    @discardableResult
    private func transition<Result>(
        _ call: String,
        _ change: (inout SessionStateMachine) throws(SessionError) -> Result
    ) throws(SessionError) -> Result {
        let before = machine.state.name
        let result = try change(&machine)
        log(call, from: before)
        return result
    }

    private func log(_ call: String, from before: String) {
        let after = machine.state.name
        logger.info(
            "session \(call)",
            metadata: [
                "from": "\(before)", "to": "\(after)",
                "user": "\(machine.state.session?.onboardingID.uuidString ?? "-")",
            ]
        )
    }
}
