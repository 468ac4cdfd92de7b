import Foundation
import GangwayFlows
import GangwayProtocol
import GangwayScreens
import Logging

/// The hand-over of a shared device's offline work, as a flow step: at each onboarding
/// and launch (a user switch is one of them) that reached the server, what waits in the
/// device's outbox is sent before the person reaches their data: the previous users'
/// changes first, each as its author's, where the app allows carrying them; then this
/// user's answers are taken in. No app code calls ``OfflineWork/sync(in:progress:)``.
///
/// ```swift
/// let provider = MobileServicesFlowProvider(
///     services: services, storeManager: storeManager, users: users,
///     handOver: OfflineHandOverStep(work: work) { event in print(event) })
/// ```
///
/// - A flow that did not reach the server (offline: the settings download worked from
///   the kept settings) tries nothing; the changes wait for the next contact.
/// - A failure is ``OfflineWorkError/handOverFailed``, with the server's
///   ``ServiceError`` underneath. It is the flow controller's delegate's to answer:
///   ``GangwayFlows/FlowDisposition/retry``, or ``GangwayFlows/FlowDisposition/skip`` to
///   go on offline (what the controller does when the app says nothing, and what
///   ``ask(_:after:)`` offers the person). Nothing is lost either way.
///
/// Put it after the settings download and the app's agreements: ``MobileServicesFlowProvider``
/// does.
public struct OfflineHandOverStep: Step {
    /// What the hand-over tells the app while it runs.
    public enum Event: Sendable, Hashable {
        /// About to send: how many of this user's changes wait, and how many of other
        /// users' this session carries (`carried`) or leaves for their authors (`left`).
        case sending(own: Int, carried: Int, left: Int)
        /// `done` of `total` changes answered.
        case progress(done: Int, total: Int)
        /// What the server answered.
        case finished(OfflineWork.SyncReport)
    }

    public let work: OfflineWork
    /// Called on the flow's task as the hand-over goes.
    public let observer: @Sendable (Event) -> Void

    public init(work: OfflineWork, observer: @escaping @Sendable (Event) -> Void = { _ in }) {
        self.work = work
        self.observer = observer
    }

    public func onboard(_ context: FlowContext) async throws -> FlowContext { try await handOver(context) }
    public func restore(_ context: FlowContext) async throws -> FlowContext { try await handOver(context) }
    public func resetPasscode(_ context: FlowContext) async throws -> FlowContext { try await handOver(context) }

    private func handOver(_ context: FlowContext) async throws -> FlowContext {
        let logger = work.services.logger
        guard context.info[.settingsExchanged] == true else {
            logger.info("offline hand-over left for the next server contact: this flow did not reach the server")
            return context
        }
        guard try work.isReady(in: context) else { return context }
        let waiting = try work.waiting(in: context)
        let carries =
            try context.credentials.serverSettings()?.allowsUploadOfPreviousUserChanges
            ?? APIDefaults.allowsUploadOfPreviousUserChanges
        observer(.sending(own: waiting.own, carried: carries ? waiting.others : 0, left: carries ? 0 : waiting.others))
        let report: OfflineWork.SyncReport
        do {
            report = try await work.sync(in: context) { done, total in observer(.progress(done: done, total: total)) }
        } catch let error as ServiceError {
            logger.notice("offline hand-over failed; the changes wait", metadata: ["reason": "\(error)"])
            throw OfflineWorkError(
                .handOverFailed,
                StringTable.text("offline.handOverFailed", error.summary),
                underlying: error
            )
        }
        var context = context
        context.info[.offlineHandOver] = report
        logger.info(
            "offline hand-over finished",
            metadata: ["settled": "\(report.sent.settled)", "archived": "\(report.archived.count)"]
        )
        observer(.finished(report))
        return context
    }

    /// Asks the person what to do after the hand-over failed: try again, or go on
    /// offline. For a flow controller's delegate; any other failure, or a presenter that
    /// is gone, stops the flow.
    ///
    /// ```swift
    /// FlowController(provider: provider) { failure in
    ///     await OfflineHandOverStep.ask(presenter, after: failure)
    /// }
    /// ```
    public static func ask(_ presenter: any Presenter, after failure: FlowFailure) async -> FlowDisposition {
        guard failure.canSkip, let error = failure.error as? OfflineWorkError else { return .stop }
        var strings = ErrorScreen.Strings()
        strings.cancel = StringTable.text("offline.goOnOffline")
        let screen = ErrorScreen(
            message: error.message,
            advice: (error.underlying as? ServiceError)?.advice,
            allowsRetry: true,
            strings: strings
        )
        do {
            return try await presenter.present(screen) == .retry ? .retry : .skip
        } catch {
            // The person went away: nothing to go on to.
            return .stop
        }
    }
}

extension FlowInfoKey where Value == OfflineWork.SyncReport {
    /// What the flow's offline hand-over sent and what the server answered.
    public static var offlineHandOver: Self { Self("gangway.offlineHandOver") }
}
