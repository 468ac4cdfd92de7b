import GangwayStore
import Logging

/// What to do when a step fails.
public enum FlowDisposition: Sendable, Hashable {
    /// Run the failed step again, with the context it got the first time.
    case retry
    /// Give up on the flow.
    case stop
    /// Go on with the next step, without the failed step's work: only after a failure
    /// that allows it (``FlowFailure/canSkip``); after any other it stops the flow.
    case skip
}

/// A step's failure, as the controller's delegate sees it.
public struct FlowFailure: Sendable {
    /// The flow that was running.
    public let flowType: FlowType
    /// The position of the failed step.
    public let stepIndex: Int
    /// How many times this step has failed in this run, counting this one.
    public let attempt: Int
    /// What the step threw.
    public let error: any Error

    /// Whether the flow may go on without the failed step's work
    /// (``FlowDisposition/skip``), as after the offline hand-over's failure.
    public var canSkip: Bool { (error as? any SkippableStepError)?.canSkip == true }
}

/// Runs flows: gets the steps from the provider, runs them in order, and on a failure asks
/// the delegate whether to retry the step, stop, or (after a failure that allows it) go on
/// without it. Errors that are the user's decision or
/// final (``FlowEndingError``, such as "forgot passcode" or a declined agreement) stop
/// the flow without asking. A stopped or cancelled onboarding is
/// rolled back: every step that ran is reset, last first, so no half-onboarded state
/// survives.
public struct FlowController: Sendable {
    /// Decides what happens when a step fails. The default is ``defaultDisposition(_:)``.
    public typealias Delegate = @Sendable (FlowFailure) async -> FlowDisposition

    /// What happens when the app says nothing: a flow goes on after a failure that allows
    /// it (work that waits for a later time never keeps a person from their data), and
    /// stops after any other.
    public static func defaultDisposition(_ failure: FlowFailure) -> FlowDisposition {
        failure.canSkip ? .skip : .stop
    }

    private let provider: any FlowProvider
    private let delegate: Delegate
    private let logger: Logger

    public init(
        provider: any FlowProvider,
        logger: Logger = Logger(label: "gangway.flows"),
        delegate: @escaping Delegate = { defaultDisposition($0) }
    ) {
        self.provider = provider
        self.logger = logger
        self.delegate = delegate
    }

    /// Runs the flow of `type` on `context` and returns the context its last step returned.
    /// - Throws: ``FlowError/stopped`` when a step failed and the delegate stopped the
    ///   flow, ``FlowError/cancelled`` when the task was cancelled.
    public func run(_ type: FlowType, context: FlowContext) async throws(FlowError) -> FlowContext {
        let steps = provider.steps(for: type)
        logger.info("flow started", metadata: ["flow": "\(type)", "steps": "\(steps.count)"])
        if case .reset = type {
            await rollback(steps, context: context)
            return context
        }
        var context = context
        for (index, step) in steps.enumerated() {
            context = try await runStep(step, at: index, of: type, with: context, all: steps)
        }
        // A passcode handed from one step to the next never outlives its flow.
        context.info[.unlockPasscode] = nil
        logger.info("flow finished", metadata: ["flow": "\(type)"])
        return context
    }

    private func runStep(
        _ step: any Step,
        at index: Int,
        of type: FlowType,
        with context: FlowContext,
        all steps: [any Step]
    ) async throws(FlowError) -> FlowContext {
        var attempt = 0
        while true {
            attempt += 1
            if Task.isCancelled {
                try await giveUp(
                    .cancelled(type, step: index),
                    steps: steps.prefix(index),
                    type: type,
                    context: context
                )
            }
            do {
                return try await step.run(type, context)
            } catch {
                logger.warning(
                    "step failed",
                    metadata: ["flow": "\(type)", "step": "\(index + 1)", "attempt": "\(attempt)"]
                )
                let failure = FlowFailure(flowType: type, stepIndex: index, attempt: attempt, error: error)
                let isCancellation = error is CancellationError || Task.isCancelled
                // A choice the user made, or data that is gone, is not retried.
                let isFinal = (error as? any FlowEndingError)?.endsFlow == true
                if !isCancellation, !isFinal {
                    switch await delegate(failure) {
                    case .retry:
                        continue
                    case .skip where failure.canSkip:
                        logger.notice(
                            "step skipped after its failure",
                            metadata: ["flow": "\(type)", "step": "\(index + 1)"]
                        )
                        return context
                    case .stop, .skip:
                        break
                    }
                }
                let flowError: FlowError =
                    isCancellation ? .cancelled(type, step: index) : .stopped(type, step: index, underlying: error)
                try await giveUp(flowError, steps: steps.prefix(index + 1), type: type, context: context)
            }
        }
    }

    /// Rolls back an onboarding and throws `error`.
    private func giveUp(
        _ error: FlowError,
        steps: ArraySlice<any Step>,
        type: FlowType,
        context: FlowContext
    ) async throws(FlowError) -> Never {
        switch type {
        case .onboard:
            logger.notice("rolling back a failed onboarding", metadata: ["steps": "\(steps.count)"])
            await rollback(Array(steps), context: context)
        case .restore, .resetPasscode:
            // Not rolled back (that could cost the user their data), but no session opens:
            // a store an earlier step opened is closed rather than left unlocked.
            context.secureStore?.close()
        case .background, .unlock, .reset:
            break
        }
        throw error
    }

    private func rollback(_ steps: [any Step], context: FlowContext) async {
        for step in steps.reversed() { await step.reset(context) }
    }
}
