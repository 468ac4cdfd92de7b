import Foundation
import GangwayFlows
import Testing

@Suite("Session state machine")
struct SessionStateMachineTests {
    static let user = UUID()

    static func openMachine(at time: Duration = .zero) throws -> (SessionStateMachine, Session) {
        var machine = SessionStateMachine()
        try machine.startOpening()
        let session = Session(onboardingID: user, openedAt: time)
        try machine.opened(session)
        return (machine, session)
    }

    @Test func opensThroughOpening() throws {
        var machine = SessionStateMachine()
        #expect(machine.state == .idle)
        try machine.startOpening()
        #expect(machine.state == .opening)
        #expect(throws: SessionError.wrongState) { try machine.startOpening() }
        try machine.openingFailed()
        #expect(machine.state == .idle)
        let (open, session) = try Self.openMachine()
        #expect(open.state == .open(session))
    }

    @Test func backgroundLocksAndHidesScreensAtOnce() throws {
        var (machine, session) = try Self.openMachine()
        #expect(machine.enterBackground(at: .seconds(10)) == .hideScreens)
        #expect(machine.state == .locked(session, since: .seconds(10)))
        #expect(machine.enterBackground(at: .seconds(11)) == .none, "already locked")
        #expect(machine.state == .locked(session, since: .seconds(10)), "the first time counts")
    }

    @Test func foregroundWithinTheLockTimeoutResumesWithoutAPasscode() throws {
        var (machine, session) = try Self.openMachine()
        _ = machine.enterBackground(at: .seconds(100))
        #expect(machine.enterForeground(at: .seconds(399), lockTimeout: .seconds(300)) == .resume)
        #expect(machine.state == .open(session))
    }

    @Test func foregroundAtOrPastTheLockTimeoutAsksForThePasscode() throws {
        for away in [Duration.seconds(300), .seconds(301), .seconds(86_400)] {
            var (machine, session) = try Self.openMachine()
            _ = machine.enterBackground(at: .seconds(100))
            #expect(machine.enterForeground(at: .seconds(100) + away, lockTimeout: .seconds(300)) == .unlock)
            #expect(machine.state == .unlocking(session))
            #expect(machine.enterBackground(at: .seconds(500)) == .hideScreens, "the passcode screen hides too")
            try machine.unlocked()
            #expect(machine.state == .open(session))
        }
    }

    @Test func aZeroTimeoutAsksAtEveryReturnAndNoPasscodeNeverAsks() throws {
        var (machine, _) = try Self.openMachine()
        _ = machine.enterBackground(at: .seconds(5))
        #expect(machine.enterForeground(at: .seconds(5), lockTimeout: .zero) == .unlock)
        try machine.unlocked()
        _ = machine.enterBackground(at: .seconds(6))
        #expect(machine.enterForeground(at: .seconds(6), lockTimeout: .zero) == .unlock, "and at the next")
        var (unprotected, _) = try Self.openMachine()
        _ = unprotected.enterBackground(at: .seconds(5))
        #expect(unprotected.enterForeground(at: .seconds(9_999), lockTimeout: .zero, hasPasscode: false) == .resume)
    }

    @Test func backgroundWhileOnboardingHidesTheScreens() throws {
        var machine = SessionStateMachine()
        try machine.startOpening()
        #expect(machine.enterBackground(at: .zero) == .hideScreens)
        #expect(machine.state == .opening)
        #expect(machine.enterForeground(at: .seconds(1), lockTimeout: .zero) == .none)
    }

    @Test func aSessionNotYetUnlockedAsksAgainAtTheNextReturn() throws {
        var (machine, session) = try Self.openMachine()
        _ = machine.enterBackground(at: .seconds(10))
        #expect(machine.enterForeground(at: .seconds(400), lockTimeout: .seconds(300)) == .unlock)
        #expect(machine.enterBackground(at: .seconds(401)) == .hideScreens)
        #expect(machine.enterForeground(at: .seconds(402), lockTimeout: .seconds(300)) == .unlock)
        #expect(machine.state == .unlocking(session))
    }

    @Test func closeReturnsTheSessionAndWrongCallsThrow() throws {
        var machine = SessionStateMachine()
        let error = #expect(throws: SessionError.wrongState) { _ = try machine.close() }
        #expect(error?.description == "close is not allowed while the session is idle")
        #expect(throws: SessionError.wrongState) { try machine.unlocked() }
        #expect(throws: SessionError.wrongState) {
            try machine.opened(Session(onboardingID: Self.user, openedAt: .zero))
        }
        #expect(machine.enterForeground(at: .zero, lockTimeout: .zero) == .none)

        var (open, session) = try Self.openMachine()
        _ = open.enterBackground(at: .zero)
        #expect(try open.close() == session, "a locked session can be closed")
        #expect(open.state == .closed)
        #expect(throws: SessionError.wrongState) { _ = try open.close() }
        try open.startOpening()
        #expect(open.state == .opening, "a closed session can open again")

    }
}
