"""OKE node pools and cluster add-ons (`pulumi_oci`; only this backend imports it)."""
