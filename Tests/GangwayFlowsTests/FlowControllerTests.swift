import Foundation
import GangwayFlows
import GangwayTesting
import Synchronization
import Testing

@Suite("Flow controller")
struct FlowControllerTests {
    struct StepFailed: Error {}

    static let name = FlowInfoKey<String>("name")

    /// A step that records what it does and can fail a set number of times.
    static func step(_ label: String, _ recorder: Recorder, failures: Int = 0) -> ClosureStep {
        let remaining = Mutex(failures)
        return ClosureStep(
            label,
            onboard: { context in
                recorder.record("onboard \(label)")
                if remaining.withLock({ count in
                    defer { count -= 1 }
                    return count > 0
                }) {
                    throw StepFailed()
                }
                var context = context
                context.info[Self.name] = (context.info[Self.name] ?? "") + label
                return context
            },
            restore: { context in
                recorder.record("restore \(label)")
                return context
            },
            reset: { _ in recorder.record("reset \(label)") }
        )
    }

    static func context() -> FlowContext {
        FlowContext(onboardingID: UUID(), presenter: ScriptedPresenter())
    }

    @Test func stepsRunInOrderAndHandTheContextOn() async throws {
        let recorder = Recorder()
        let controller = FlowController(
            provider: StepListProvider([Self.step("a", recorder), Self.step("b", recorder), Self.step("c", recorder)])
        )
        let result = try await controller.run(.onboard, context: Self.context())
        #expect(result.info[Self.name] == "abc")
        #expect(recorder.all == ["onboard a", "onboard b", "onboard c"])

        let id = UUID()
        _ = try await controller.run(.restore(id), context: Self.context())
        #expect(recorder.all.suffix(3) == ["restore a", "restore b", "restore c"])
    }

    @Test func aFailedStepIsRetriedWhenTheDelegateSaysSo() async throws {
        let recorder = Recorder()
        let attempts = Mutex<[Int]>([])
        let controller = FlowController(
            provider: StepListProvider([Self.step("a", recorder), Self.step("b", recorder, failures: 2)])
        ) { failure in
            attempts.withLock { $0.append(failure.attempt) }
            return .retry
        }
        let result = try await controller.run(.onboard, context: Self.context())
        #expect(result.info[Self.name] == "ab")
        #expect(attempts.withLock { $0 } == [1, 2])
        #expect(recorder.all == ["onboard a", "onboard b", "onboard b", "onboard b"])
    }

    @Test func aStoppedOnboardingRollsBackEveryStepThatRanLastFirst() async throws {
        let recorder = Recorder()
        let controller = FlowController(
            provider: StepListProvider([
                Self.step("a", recorder), Self.step("b", recorder), Self.step("c", recorder, failures: 5),
                Self.step("d", recorder),
            ])
        ) { failure in failure.attempt < 2 ? .retry : .stop }
        let error = await #expect(throws: FlowError.stopped) {
            try await controller.run(.onboard, context: Self.context())
        }
        #expect(error?.stepIndex == 2)
        #expect(error?.underlying is StepFailed)
        #expect(
            recorder.all == [
                "onboard a", "onboard b", "onboard c", "onboard c", "reset c", "reset b", "reset a",
            ]
        )
    }

    @Test func aFailedRestoreIsNotRolledBack() async throws {
        let recorder = Recorder()
        let failing = ClosureStep("x", restore: { _ in throw StepFailed() }, reset: { _ in recorder.record("reset x") })
        let controller = FlowController(provider: StepListProvider([Self.step("a", recorder), failing]))
        await #expect(throws: FlowError.stopped) { try await controller.run(.restore(UUID()), context: Self.context()) }
        #expect(recorder.all == ["restore a"], "a restore keeps the user's data")
    }

    @Test func aCancelledOnboardingIsRolledBack() async throws {
        let recorder = Recorder()
        let started = AsyncStream<Void>.makeStream()
        let blocking = ClosureStep(
            "wait",
            onboard: { context in
                started.continuation.yield()
                try await Task.sleep(for: .seconds(60))
                return context
            },
            reset: { _ in recorder.record("reset wait") }
        )
        let controller = FlowController(provider: StepListProvider([Self.step("a", recorder), blocking]))
        let task = Task { try await controller.run(.onboard, context: Self.context()) }
        var iterator = started.stream.makeAsyncIterator()
        await iterator.next()
        task.cancel()
        await #expect(throws: FlowError.cancelled) { try await task.value }
        #expect(recorder.all == ["onboard a", "reset wait", "reset a"])
    }

    @Test func theResetFlowResetsEveryStepLastFirst() async throws {
        let recorder = Recorder()
        let controller = FlowController(
            provider: StepListProvider([
                Self.step("a", recorder), CompositeStep([Self.step("b", recorder), Self.step("c", recorder)]),
            ])
        )
        _ = try await controller.run(.reset(UUID()), context: Self.context())
        #expect(recorder.all == ["reset c", "reset b", "reset a"])
    }

    @Test func aCompositeStepRunsItsStepsAsOne() async throws {
        let recorder = Recorder()
        let composite = CompositeStep([Self.step("x", recorder), Self.step("y", recorder)])
        let controller = FlowController(provider: StepListProvider([Self.step("a", recorder), composite]))
        let result = try await controller.run(.onboard, context: Self.context())
        #expect(result.info[Self.name] == "axy")
        _ = try await controller.run(.restore(UUID()), context: Self.context())
        #expect(recorder.all.suffix(3) == ["restore a", "restore x", "restore y"])
    }

    /// Work that can wait for a later time, as the offline hand-over's.
    struct WorkWaits: SkippableStepError {
        var canSkip: Bool { true }
    }

    @Test func aFailureThatAllowsItIsSkippedByDefaultAndTheFlowGoesOn() async throws {
        let recorder = Recorder()
        let waiting = ClosureStep("send", onboard: { _ in throw WorkWaits() })
        let controller = FlowController(
            provider: StepListProvider([Self.step("a", recorder), waiting, Self.step("b", recorder)])
        )
        let result = try await controller.run(.onboard, context: Self.context())
        #expect(result.info[Self.name] == "ab", "the step after it ran, with the context from before it")
        #expect(recorder.all == ["onboard a", "onboard b"])
    }

    @Test func skipStopsTheFlowAfterAFailureThatDoesNotAllowIt() async throws {
        let recorder = Recorder()
        let asked = Mutex<[Bool]>([])
        let controller = FlowController(
            provider: StepListProvider([Self.step("a", recorder), Self.step("b", recorder, failures: 1)])
        ) { failure in
            asked.withLock { $0.append(failure.canSkip) }
            return .skip
        }
        let error = await #expect(throws: FlowError.stopped) {
            try await controller.run(.onboard, context: Self.context())
        }
        #expect(error?.underlying is StepFailed)
        #expect(asked.withLock { $0 } == [false])
        #expect(recorder.all == ["onboard a", "onboard b", "reset b", "reset a"])
    }

    @Test func theAppMayStopAfterAFailureThatAllowsSkipping() async throws {
        let controller = FlowController(
            provider: StepListProvider([ClosureStep("send", restore: { _ in throw WorkWaits() })])
        ) { _ in .stop }
        await #expect(throws: FlowError.stopped) { try await controller.run(.restore(UUID()), context: Self.context()) }
    }
}
