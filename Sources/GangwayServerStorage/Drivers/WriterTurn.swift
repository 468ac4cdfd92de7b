/// Whose turn it is to write: one holder at a time, the others waiting in the order they
/// came. An actor's methods can wait, which a lock held across `await` cannot.
actor WriterTurn {
    private var taken = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Returns once the caller holds the turn.
    func begin() async {
        guard taken else {
            taken = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the turn to the next in line, if any.
    func end() {
        if waiting.isEmpty {
            taken = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
