"""The `AcceleratorStack` component: the device plugins, GPU Operator or OKE add-ons that
make a pool's nodes advertise their accelerators, and what each pool advertises with them.

May import: `pulumi`, `nodepools.specs` (`.core`, `.devices`, `.governance`; `.pools` for
types only), `nodepools.backends.devices` (which registers the releases and add-ons), and
the top-level helpers `nodepools.documentation`, `.outputs`, `.preflight` and `.scheduling`.
Imported by `nodepools.fleet` and the package's public API.
"""
