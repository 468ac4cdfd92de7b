import Foundation

/// CPU-bound work over many items (opening sealed changes, checking signatures) spread
/// over the processor's cores as child tasks, so one upload does not wait on one core
/// and no thread is blocked while it runs.
enum ParallelWork {
    /// Items below this count are worked on in the calling task.
    static let threshold = 64

    /// `transform` of each item, in the items' order.
    static func map<Item: Sendable, Output: Sendable>(
        _ items: [Item],
        _ transform: @escaping @Sendable (Item) -> Output
    ) async -> [Output] {
        let workers = min(max(1, items.count / threshold), ProcessInfo.processInfo.activeProcessorCount, 8)
        guard workers > 1 else { return items.map(transform) }
        let chunk = (items.count + workers - 1) / workers
        return await withTaskGroup(of: (Int, [Output]).self) { group in
            for worker in 0..<workers {
                let range = (worker * chunk)..<min(items.count, (worker + 1) * chunk)
                let slice = Array(items[range])
                group.addTask { (worker, slice.map(transform)) }
            }
            var parts = [[Output]](repeating: [], count: workers)
            for await (worker, part) in group { parts[worker] = part }
            return parts.flatMap { $0 }
        }
    }
}
