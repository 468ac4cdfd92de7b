import CLibFuzzer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Runs libFuzzer with the process's arguments and `test` as the target, then exits
/// with its status: a harness's whole `main.swift`.
///
/// SwiftPM points an executable's `main` at its top-level code, so libFuzzer's own
/// `main` is never called; its driver is, from here.
public func runFuzzer(_ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    let status = LLVMFuzzerRunDriver(&argc, &argv, test)
    exit(status)
}
