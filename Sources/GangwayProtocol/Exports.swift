// The generated wire types (`Components`, `Operations`) are part of the contract this
// module is: a module that imports GangwayProtocol sees them, as it did when they were
// generated here.
@_exported public import GangwayWire
