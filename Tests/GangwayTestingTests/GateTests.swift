import GangwayTesting
import Testing

@Suite("A gate lets a few in at once, and the others in their turn")
struct GateTests {
    /// The names of the callers who went in, in the order they did.
    actor Order {
        var names: [String] = []
        func append(_ name: String) { names.append(name) }
    }

    /// Starts a caller that enters `gate` (`first` or not), notes `name` once inside, and
    /// leaves; returns once the caller waits at the gate.
    static func queue(
        _ name: String,
        first: Bool = false,
        at gate: Gate,
        order: Order
    ) async throws -> Task<Void, any Error> {
        let waiting = await gate.waiters
        let task = Task {
            try await gate.inside(first: first) { await order.append(name) }
        }
        while await gate.waiters == waiting { try await Task.sleep(for: .milliseconds(5)) }
        return task
    }

    @Test("as many as its width go in at once; the next waits until one leaves")
    func width() async throws {
        let gate = Gate(width: 2)
        await gate.enter()
        await gate.enter()
        let order = Order()
        let third = try await Self.queue("third", at: gate, order: order)
        #expect(await order.names.isEmpty, "the third waits while two are inside")
        await gate.leave()
        try await third.value
        #expect(await order.names == ["third"])
        await gate.leave()
    }

    @Test("those who wait go in first come first served, those who came first ahead of the others")
    func order() async throws {
        let gate = Gate(width: 1)
        await gate.enter()
        let order = Order()
        let tasks = [
            try await Self.queue("a", at: gate, order: order),
            try await Self.queue("b, first", first: true, at: gate, order: order),
            try await Self.queue("c", at: gate, order: order),
            try await Self.queue("d, first", first: true, at: gate, order: order),
        ]
        #expect(await gate.waiters == 4)
        await gate.leave()
        for task in tasks { try await task.value }
        #expect(await order.names == ["b, first", "d, first", "a", "c"])
        #expect(await gate.waiters == 0)
        // All have left: the gate is open again to one.
        await gate.enter()
        await gate.leave()
    }
}
