use proc_macro::TokenStream;
#[proc_macro_attribute]
pub fn metamorphic(_a: TokenStream, i: TokenStream) -> TokenStream { i }
#[proc_macro_attribute]
pub fn in_vivo(_a: TokenStream, i: TokenStream) -> TokenStream { i }
